// A plain Node test script: prints a long progress log, then the failures at the end.
import { applyDiscount, subtotal } from "../src/cart.js"

let failures = 0
const check = (name, actual, expected) => {
  if (actual !== expected) {
    failures++
    console.log(`FAIL ${name}: expected ${expected}, got ${actual}`)
  }
}

for (let i = 1; i <= 5000; i++) console.log(`progress: checked fixture ${i} of 5000 ... ok`)
check("subtotal", subtotal([{ price: 250, quantity: 2 }, { price: 100, quantity: 1 }]), 600)
check("applyDiscount 10% of 200", applyDiscount(200, 10), 180)
let rejected = false
try {
  applyDiscount(100, 150)
} catch {
  rejected = true
}
check("applyDiscount rejects a discount over 100%", rejected, true)
console.log(failures === 0 ? "all tests passed" : `${failures} test(s) failed`)
process.exitCode = failures === 0 ? 0 : 1 // not process.exit(): it would cut piped output short
