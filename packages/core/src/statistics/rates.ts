// Percentages as upstream Hermes writes them in statistics.json: `round(part / whole * 100, 2)` in
// Python, `0.0` when the whole is 0 (docs/rules.md#success-rate). Python's round() rounds the exact
// binary value half to even, which differs from Math.round on ties (0.125 -> 0.12) and on values
// just below a tie (2.675 -> 2.67), so it is reproduced here exactly.

/** Python's `round(x, digits)` for a finite float and 0 <= digits <= 20. */
export function pythonRound(x: number, digits: number): number {
  // toFixed rounds the exact binary value to nearest, ties away from zero. A tie is only possible when
  // x has at most digits + 1 binary fraction digits (x = odd / 2^(digits+1) once the 5s cancel), and
  // then toFixed(digits + 1) is exact and ends in 5.
  const scaled = x * 2 ** (digits + 1);
  if (Number.isInteger(scaled)) {
    const exact = x.toFixed(digits + 1);
    if (exact.endsWith('5')) {
      const towardZero = exact.slice(0, -1);
      const lastDigit = Number(towardZero.replace(/\.$/, '').slice(-1));
      return Number(lastDigit % 2 === 0 ? towardZero : x.toFixed(digits));
    }
  }
  return Number(x.toFixed(digits));
}

/** `part` as a percentage of `whole`, rounded to 2 decimals as upstream; 0 when `whole` is 0. */
export function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : pythonRound((part / whole) * 100, 2);
}
