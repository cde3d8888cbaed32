// 1 GiB in 1 MiB blocks, one alive at a time.
fun main() {
    var alive = ByteArray(0)
    for (i in 0 until 1024) {
        alive = ByteArray(1 shl 20)
        alive[i] = i.toByte()
    }
    println("done " + alive.size)
}
