/**
 * Supplier prices → the API's money format: a decimal string with two decimals ("12.50").
 * Works on the decimal text (a JSON number's shortest form is its decimal text), rounding half
 * up at the cent, so no binary floating-point rounding ever reaches a price.
 */
const DECIMAL = /^(\d{1,12})(?:\.(\d+))?$/;

export function money(value: unknown): string | null {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) return null;
    value = String(value);
    if ((value as string).includes("e")) return null; // 1e21 and friends are not prices
  }
  if (typeof value !== "string") return null;
  const m = DECIMAL.exec(value.trim());
  if (!m) return null;
  const fraction = (m[2] ?? "").padEnd(3, "0");
  let cents = BigInt(m[1]) * 100n + BigInt(fraction.slice(0, 2));
  if (Number(fraction[2]) >= 5) cents += 1n;
  return centsToString(cents);
}

export const toCents = (decimal: string): bigint => BigInt(decimal.replace(".", ""));
export const centsToString = (cents: bigint): string => `${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`;

/** { min, max } of decimal strings (nulls ignored), or null when there is no price at all. */
export function priceRange(prices: (string | null)[]): { min: string; max: string } | null {
  let min: bigint | undefined;
  let max: bigint | undefined;
  for (const p of prices) {
    if (p === null) continue;
    const c = toCents(p);
    if (min === undefined || c < min) min = c;
    if (max === undefined || c > max) max = c;
  }
  return min === undefined ? null : { min: centsToString(min), max: centsToString(max!) };
}
