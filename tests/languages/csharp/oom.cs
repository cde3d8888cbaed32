using System.Collections.Generic;

// Keeps every 1 MiB block: past any limit.
class Program {
    static void Main() {
        var kept = new List<byte[]>();
        for (;;) {
            var b = new byte[1 << 20];
            b[0] = 1;
            kept.Add(b);
        }
    }
}
