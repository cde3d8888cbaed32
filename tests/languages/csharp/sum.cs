using System;

class Program {
    static void Main() {
        string[] w = Console.In.ReadToEnd().Split((char[])null, StringSplitOptions.RemoveEmptyEntries);
        Console.WriteLine(long.Parse(w[0]) + long.Parse(w[1]));
    }
}
