// Keeps every 1 MiB block: past any limit.
void main()
{
    ubyte[][] kept;
    for (;;)
    {
        auto b = new ubyte[1 << 20];
        b[] = 1;
        kept ~= b;
    }
}
