fun main() {
    var x = 0L
    while (true) x = x * 31 + 7
}
