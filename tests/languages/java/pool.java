// The JVM's own view of the CPUs it may use: its pools follow it.
public class Main {
    public static void main(String[] args) {
        int n = Runtime.getRuntime().availableProcessors();
        System.out.println(n == 1 ? "bounded" : "unbounded: " + n + " processors");
    }
}
