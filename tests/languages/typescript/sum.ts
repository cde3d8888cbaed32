declare function require(name: string): any;
const words: string[] = require("fs").readFileSync(0, "utf8").trim().split(/\s+/);
const total: number = words.map(Number).reduce((a: number, b: number) => a + b, 0);
console.log(String(total));
