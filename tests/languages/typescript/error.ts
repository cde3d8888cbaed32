function f(n: number): number {
  if (n > 2) throw new Error("uncaught");
  return n;
}
console.log(f(5));
