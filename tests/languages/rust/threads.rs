// Four threads, each sums its quarter.
fn main() {
    let handles: Vec<_> = (0..4u64)
        .map(|id| std::thread::spawn(move || (id..400_000).step_by(4).sum::<u64>()))
        .collect();
    let total: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    println!("{}", total);
}
