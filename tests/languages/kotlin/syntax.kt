fun main() {
    println("missing paren"
}
