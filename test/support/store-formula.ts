/** The spec's formula computed independently, in integer cents and millionths, from the decimal text of the amount. */
export function expectedTotal(amountUsd: number, feeRatio: number, markupPercent: number): number {
  const amount = BigInt(Math.round(amountUsd * 100)) * 10_000n; // micro
  const fee = (amount * BigInt(Math.round(feeRatio * 1e6)) + 500_000n) / 1_000_000n;
  const cost = amount + fee;
  const markup = (cost * BigInt(Math.round(markupPercent * 100)) + 5_000n) / 10_000n;
  const total = cost + markup;
  return Number((total + 5_000n) / 10_000n) / 100; // to cents, half up (all positive)
}
