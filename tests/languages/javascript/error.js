const a = null;
console.log(a.length);
