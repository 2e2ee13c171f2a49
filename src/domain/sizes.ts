/**
 * Size breakdowns in apparel order. They are stored as jsonb, which keeps object keys sorted by
 * length and bytes (`L, M, S, XL, 2XL`), not as sent; invoices and screens want youth sizes, then
 * XXS … 6XL, then one-size, then anything else (in stored order). Matching ignores case.
 */
export const APPAREL_SIZES = [
  "YXS",
  "YS",
  "YM",
  "YL",
  "YXL",
  "XXS",
  "2XS",
  "XS",
  "S",
  "M",
  "L",
  "XL",
  "XXL",
  "2XL",
  "XXXL",
  "3XL",
  "4XL",
  "5XL",
  "6XL",
  "OS",
  "OSFA",
  "ONE SIZE",
] as const;
const ORDER: readonly string[] = APPAREL_SIZES;
const rank = new Map(ORDER.map((size, i) => [size, i]));

/** The apparel size a key names (case and surrounding spaces ignored), or undefined for any other text. */
export const canonicalSize = (key: string): string | undefined => {
  const size = key.trim().toUpperCase();
  return rank.has(size) ? size : undefined;
};

export function orderedSizes(sizes: Record<string, number>): Record<string, number> {
  const position = (size: string) => rank.get(size.trim().toUpperCase()) ?? ORDER.length;
  // Array.prototype.sort is stable: unknown sizes keep their stored order after the known ones.
  return Object.fromEntries(Object.entries(sizes).sort(([a], [b]) => position(a) - position(b)));
}
