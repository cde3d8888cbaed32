using System;

class Program {
    static void Main(string[] args) {
        int[] a = new int[3];
        Console.WriteLine(a[args.Length + 5]);
    }
}
