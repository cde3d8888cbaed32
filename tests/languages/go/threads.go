package main

import (
	"fmt"
	"sync"
)

// Four goroutines, each sums its quarter.
func main() {
	var wg sync.WaitGroup
	part := make([]int64, 4)
	for k := 0; k < 4; k++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			var s int64
			for i := int64(id); i < 400000; i += 4 {
				s += i
			}
			part[id] = s
		}(k)
	}
	wg.Wait()
	fmt.Println(part[0] + part[1] + part[2] + part[3])
}
