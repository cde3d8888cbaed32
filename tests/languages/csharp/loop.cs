class Program {
    static void Main() {
        long x = 0;
        for (;;)
            x = x * 31 + 7;
    }
}
