// Keeps every 1 MiB block: past any limit.
fun main() {
    val kept = ArrayList<ByteArray>()
    while (true) {
        val b = ByteArray(1 shl 20)
        b[0] = 1
        kept.add(b)
    }
}
