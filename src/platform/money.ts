import { z } from "@hono/zod-openapi";
import Big from "big.js";

/** A decimal as JSON writes numbers, an exponent allowed: "12.50", "-3", "1.25e2", "1E-2". */
const DECIMAL_TEXT = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** The exact value of decimal text, or undefined when it is none (or its exponent is beyond what big.js reads, ±1e6). */
function decimalValue(text: string): Big | undefined {
  if (!DECIMAL_TEXT.test(text)) return undefined;
  try {
    return new Big(text);
  } catch {
    return undefined;
  }
}

/**
 * Exact decimal input, the one rule for every amount, rate and quantity: a JSON number or a decimal
 * string ("12.50"; an exponent is allowed in both, `1e2` and "1e2" are 100), whose exact value has at
 * most `scale` decimals and lies within [min, max]. So a nonzero value that would round to zero, or
 * that has more decimals than allowed, is refused, never rounded. Parsed to a canonical decimal string
 * for a numeric column, never through floating point arithmetic: a JSON number is taken by its shortest
 * decimal text (0.1 → "0.1"), which is the number sent, since the body guard refuses numbers that
 * JSON.parse would change (`inexactNumber`: `1e-400` would be read as 0).
 */
export function decimalInput(opts: { scale: number; min: number; max: string; example?: string; description?: string }) {
  return z
    .union([z.number(), z.string().max(64)])
    .transform((value, ctx) => {
      const n = decimalValue(typeof value === "number" ? String(value) : value.trim());
      if (n === undefined) {
        ctx.addIssue({ code: "custom", message: 'Must be a decimal number: a JSON number or a string such as "12.50"' });
        return z.NEVER;
      }
      if (!n.round(opts.scale, Big.roundDown).eq(n)) {
        ctx.addIssue({ code: "custom", message: `Must have at most ${opts.scale} decimals (it would be rounded otherwise)` });
        return z.NEVER;
      }
      if (n.lt(opts.min) || n.gt(opts.max)) {
        ctx.addIssue({ code: "custom", message: `Must be between ${opts.min} and ${opts.max}` });
        return z.NEVER;
      }
      // Big keeps the sign of zero: "-0" is stored as 0.
      return (n.eq(0) ? new Big(0) : n).toFixed(opts.scale);
    })
    .openapi({
      example: opts.example,
      description:
        `${opts.description ?? "Decimal"}: a JSON number or decimal string, at most ${opts.scale} decimals ` +
        "(an exponent is allowed and read exactly; a value with more decimals, nonzero ones rounding to zero included, is 400)",
    });
}

/** Money on the wire: a decimal string with exactly two decimals (numeric in SQL). */
export const moneyString = (description?: string) =>
  z.string().openapi({ description: `${description ? `${description}. ` : ""}Decimal string, two decimals`, example: "12.50" });

/** Largest value of a numeric(14,2) column. */
export const MAX_MONEY = "999999999999.99";

/** Canonical decimal text without trailing zeros ("8.8750" → "8.875"), for rates and quantities. */
export const plainDecimal = (value: string) => new Big(value).toString();

/** Cents, rounded half up (away from zero): the API's one rounding rule for money. */
export const toCents = (value: Big.BigSource) => new Big(value).round(2, Big.roundHalfUp);

const PRICE = /^\d{1,12}(\.\d+)?$/;

/**
 * Untrusted price from a third party (a JSON number or decimal text) → the API's money string, or
 * null when it is not a non-negative price. A JSON number is taken by its shortest decimal text
 * (4.605 → "4.605" → "4.61"), so binary floating point never decides a cent.
 */
export function priceFrom(value: unknown): string | null {
  const text = typeof value === "number" && Number.isFinite(value) ? String(value) : typeof value === "string" ? value.trim() : "";
  return PRICE.test(text) ? toCents(text).toFixed(2) : null;
}

/** { min, max } of money strings (nulls ignored), or null when there is no price at all. */
export function priceRange(prices: (string | null)[]): { min: string; max: string } | null {
  const known = prices.filter((p): p is string => p !== null).map((p) => new Big(p));
  if (!known.length) return null;
  const sorted = known.sort((a, b) => a.cmp(b));
  return { min: sorted[0].toFixed(2), max: sorted[sorted.length - 1].toFixed(2) };
}
