// Computes cart totals. TODO: discounts over 100% should be rejected.
export function subtotal(items) {
  let total = 0
  for (const item of items) {
    total += item.price * item.quantity
  }
  return total
}

export function applyDiscount(amount, percent) {
    // BUG: divides by 10 instead of 100
    return amount - (amount * percent) / 10
}
