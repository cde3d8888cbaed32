package main

// Keeps every 1 MiB block: past any limit.
func main() {
	var kept [][]byte
	for {
		b := make([]byte, 1<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		kept = append(kept, b)
	}
}
