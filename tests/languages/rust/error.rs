fn main() {
    let a = vec![1, 2, 3];
    let i = std::env::args().count() + 5;
    println!("{}", a[i]);
}
