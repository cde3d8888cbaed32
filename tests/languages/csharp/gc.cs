using System;

// 1 GiB in 1 MiB blocks, one alive at a time.
class Program {
    static void Main() {
        byte[] alive = null;
        long sum = 0;
        for (int i = 0; i < 1024; i++) {
            alive = new byte[1 << 20];
            alive[i] = (byte)i;
            sum += alive[i];
        }
        Console.WriteLine("done " + (alive.Length + sum - sum));
    }
}
