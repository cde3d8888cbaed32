import core.thread;
import std.stdio;

// Four threads, each sums its quarter.
void main()
{
    long[4] part;
    Thread[] t;
    foreach (k; 0 .. 4)
    {
        t ~= new Thread(((int id) => () {
            long s = 0;
            for (long i = id; i < 400_000; i += 4)
                s += i;
            part[id] = s;
        })(k)).start();
    }
    foreach (th; t)
        th.join();
    writeln(part[0] + part[1] + part[2] + part[3]);
}
