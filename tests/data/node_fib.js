function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sortMany() { const a = []; for (let i = 0; i < 20000; i++) a.push((i * 7919) % 10007); return a.sort((x, y) => x - y).length; }
const t0 = Date.now(); let acc = 0;
while (Date.now() - t0 < 300) { acc += fib(18); acc += sortMany(); }
console.log(acc > 0 ? 'ok' : 'no');
