package main

func main() {
	x := 0
	for {
		x = x*31 + 7
	}
}
