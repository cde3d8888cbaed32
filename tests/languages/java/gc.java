// 1 GiB in 1 MiB blocks, one alive at a time: the collector must keep up.
public class Main {
    public static void main(String[] args) {
        byte[] alive = null;
        long sum = 0;
        for (int i = 0; i < 1024; i++) {
            alive = new byte[1 << 20];
            alive[i] = (byte) i;
            sum += alive[i];
        }
        System.out.println("done " + (alive.length + sum - sum));
    }
}
