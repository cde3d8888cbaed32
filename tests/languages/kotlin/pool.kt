// The JVM's own view of the CPUs it may use: its pools follow it.
fun main() {
    val n = Runtime.getRuntime().availableProcessors()
    println(if (n == 1) "bounded" else "unbounded: $n processors")
}
