fun main() {
    val a = IntArray(3)
    println(a[5])
}
