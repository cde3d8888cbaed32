// Keeps every 1 MiB block: past any limit.
fn main() {
    let mut kept: Vec<Vec<u8>> = Vec::new();
    loop {
        kept.push(vec![1u8; 1 << 20]);
    }
}
