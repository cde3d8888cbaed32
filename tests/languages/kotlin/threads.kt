// Four threads, each sums its quarter.
fun main() {
    val part = LongArray(4)
    val threads = (0 until 4).map { id ->
        Thread {
            var s = 0L
            var i = id.toLong()
            while (i < 400_000) { s += i; i += 4 }
            part[id] = s
        }.also { it.start() }
    }
    threads.forEach { it.join() }
    println(part.sum())
}
