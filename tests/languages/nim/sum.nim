import strutils

let words = stdin.readAll().splitWhitespace()
echo parseBiggestInt(words[0]) + parseBiggestInt(words[1])
