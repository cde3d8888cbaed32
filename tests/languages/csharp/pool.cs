using System;
using System.IO;
using System.Text.RegularExpressions;

// The threads the runtime started once the collector has run: at most 8
// whatever the CPU count (a pool sized by the CPUs would be 64 threads on a
// 64-CPU host).
class Program {
    static void Main() {
        for (int i = 0; i < 200; i++) {
            byte[] b = new byte[1 << 20];
            b[0] = 1;
        }
        GC.Collect();
        GC.WaitForPendingFinalizers();
        string s = File.ReadAllText("/proc/self/status");
        int n = int.Parse(Regex.Match(s, @"Threads:\s+(\d+)").Groups[1].Value);
        Console.WriteLine(n <= 8 ? "bounded" : "unbounded: " + n + " threads");
    }
}
