// 1 GiB in 1 MiB blocks, one alive at a time (freed as the next comes).
fn main() {
    let mut alive: Vec<u8> = Vec::new();
    let mut sum = 0u64;
    for i in 0..1024 {
        alive = vec![i as u8; 1 << 20];
        sum += alive[0] as u64;
    }
    println!("done {}", alive.len() as u64 + sum - sum);
}
