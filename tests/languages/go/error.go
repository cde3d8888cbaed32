package main

import (
	"fmt"
	"os"
)

func main() {
	a := []int{1, 2, 3}
	fmt.Println(a[len(os.Args)+5])
}
