import java.util.ArrayList;

// Keeps every 1 MiB block: past any limit.
public class Main {
    public static void main(String[] args) {
        ArrayList<byte[]> kept = new ArrayList<>();
        for (;;) {
            byte[] b = new byte[1 << 20];
            b[0] = 1;
            kept.add(b);
        }
    }
}
