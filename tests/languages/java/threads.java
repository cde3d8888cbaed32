// Four threads, each sums its quarter; joined, the total is printed.
public class Main {
    public static void main(String[] args) throws InterruptedException {
        long[] part = new long[4];
        Thread[] t = new Thread[4];
        for (int k = 0; k < 4; k++) {
            final int id = k;
            t[k] = new Thread(() -> {
                long s = 0;
                for (long i = id; i < 400000; i += 4)
                    s += i;
                part[id] = s;
            });
            t[k].start();
        }
        long total = 0;
        for (int k = 0; k < 4; k++) {
            t[k].join();
            total += part[k];
        }
        System.out.println(total);
    }
}
