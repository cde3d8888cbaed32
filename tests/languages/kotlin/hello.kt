fun main() {
    println("hello, world")
}
