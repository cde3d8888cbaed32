public class Main {
    public static void main(String[] args) {
        long x = 0;
        for (;;)
            x = x * 31 + 7;
    }
}
