fn main() {
    let mut x: u64 = std::env::args().count() as u64;
    loop {
        x = x.wrapping_mul(31).wrapping_add(7);
        if x == 42 {
            println!("{}", x);
        }
    }
}
