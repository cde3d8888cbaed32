import core.memory;
import std.algorithm : startsWith;
import std.conv : to;
import std.stdio;
import std.string : strip;

// The threads the runtime started once the collector has run: at most 8
// whatever the CPU count (its parallel markers, one a CPU unless the
// preset says parallel:0, would be 64 on a 64-CPU host).
void main()
{
    foreach (i; 0 .. 200)
        new ubyte[](1 << 20);
    GC.collect();
    foreach (line; File("/proc/self/status").byLine)
        if (line.startsWith("Threads:"))
        {
            auto n = line["Threads:".length .. $].strip.to!int;
            writeln(n <= 8 ? "bounded" : "unbounded: " ~ n.to!string ~ " threads");
        }
}
