package main

import "fmt"

// 1 GiB in 1 MiB blocks, one alive at a time.
func main() {
	var alive []byte
	sum := 0
	for i := 0; i < 1024; i++ {
		alive = make([]byte, 1<<20)
		for k := 0; k < len(alive); k += 4096 {
			alive[k] = byte(i)
		}
		sum += int(alive[0])
	}
	fmt.Println("done", len(alive)+sum-sum)
}
