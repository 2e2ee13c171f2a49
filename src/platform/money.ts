import { z } from "@hono/zod-openapi";
import Big from "big.js";

/**
 * Exact decimal input: a JSON number or a decimal string ("12.50"), at most `scale` decimals, within
 * [min, max]. Parsed to a canonical decimal string for a numeric column, never through floating point
 * arithmetic (a JSON number is taken by its shortest decimal spelling, e.g. 0.1 → "0.1").
 */
export function decimalInput(opts: { scale: number; min?: number; max: string; example?: string; description?: string }) {
  const pattern = new RegExp(`^-?\\d{1,15}(\\.\\d{1,${opts.scale}})?$`);
  return z
    .union([z.number(), z.string().max(64)])
    .transform((value, ctx) => {
      const text = typeof value === "number" ? String(value) : value.trim();
      if (!pattern.test(text)) {
        ctx.addIssue({ code: "custom", message: `Must be a decimal number with at most ${opts.scale} decimals` });
        return z.NEVER;
      }
      const n = new Big(text);
      if ((opts.min !== undefined && n.lt(opts.min)) || n.gt(opts.max)) {
        ctx.addIssue({ code: "custom", message: `Must be between ${opts.min ?? "-∞"} and ${opts.max}` });
        return z.NEVER;
      }
      return n.toFixed(opts.scale);
    })
    .openapi({
      example: opts.example,
      description: `${opts.description ?? "Decimal"}: a JSON number or decimal string with at most ${opts.scale} decimals`,
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
