fn main() {
    println!("missing semicolon")
    let x = 1;
}
