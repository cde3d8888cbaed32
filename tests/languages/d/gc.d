import std.stdio;

// 1 GiB in 1 MiB blocks, one alive at a time.
void main()
{
    ubyte[] alive;
    foreach (i; 0 .. 1024)
    {
        alive = new ubyte[1 << 20];
        alive[] = cast(ubyte) i;
    }
    writeln("done ", alive.length);
}
