/**
 * Size breakdowns in apparel order. They are stored as jsonb, which keeps object keys sorted by
 * length and bytes (`L, M, S, XL, 2XL`), not as sent; invoices and screens want youth sizes, then
 * XXS … 6XL, then one-size, then anything else (in stored order). Matching ignores case.
 */
const ORDER = [
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
];
const rank = new Map(ORDER.map((size, i) => [size, i]));

export function orderedSizes(sizes: Record<string, number>): Record<string, number> {
  const position = (size: string) => rank.get(size.trim().toUpperCase()) ?? ORDER.length;
  // Array.prototype.sort is stable: unknown sizes keep their stored order after the known ones.
  return Object.fromEntries(Object.entries(sizes).sort(([a], [b]) => position(a) - position(b)));
}
