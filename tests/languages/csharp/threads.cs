using System;
using System.Threading;

// Four threads, each sums its quarter.
class Program {
    static void Main() {
        long[] part = new long[4];
        Thread[] t = new Thread[4];
        for (int k = 0; k < 4; k++) {
            int id = k;
            t[k] = new Thread(() => {
                long s = 0;
                for (long i = id; i < 400000; i += 4)
                    s += i;
                part[id] = s;
            });
            t[k].Start();
        }
        long total = 0;
        for (int k = 0; k < 4; k++) {
            t[k].Join();
            total += part[k];
        }
        Console.WriteLine(total);
    }
}
