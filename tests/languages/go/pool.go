package main

import (
	"fmt"
	"runtime"
)

// The threads Go runs goroutines on at once.
func main() {
	if n := runtime.GOMAXPROCS(0); n == 1 {
		fmt.Println("bounded")
	} else {
		fmt.Println("unbounded:", n)
	}
}
