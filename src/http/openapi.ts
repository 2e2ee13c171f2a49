import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "./context";
import { validationHook } from "./errors";

/** Every router is built here so all share the validation hook (400 with field details). */
export const createRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
export type Router = ReturnType<typeof createRouter>;

export const bearerSecurity = [{ bearerAuth: [] }];

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

export const MAX_INT_ID = 2_147_483_647;

/** Request text: trimmed, at most `max` characters. */
export const text = (max: number) => z.string().trim().max(max);
/** Optional request text that null clears. */
export const nullableText = (max: number, example?: string) => text(max).nullable().optional().openapi({ example });

/**
 * A whole number written in plain decimal digits ("42") from a path or query string. "0x2a", "4.2e1",
 * " 42" and "42.0" are 400, not quietly read as 42 (as `z.coerce.number()` would).
 */
export const digitsInt = (bounds: (n: z.ZodNumber) => z.ZodNumber = (n) => n) =>
  z.preprocess(
    (v) => (typeof v === "string" && /^\d{1,10}$/.test(v) ? Number(v) : v),
    // Our message for text that is not digits; range checks keep their own ("Too small: expected >= 1").
    bounds(z.number({ error: (issue) => (issue.code === "invalid_type" ? "Must be a whole number written in digits" : undefined) }).int()),
  );

/** A positive int4 id written in plain digits, or undefined: for parameters whose meaning depends on another. */
export const intId = (text: string | undefined) =>
  text !== undefined && /^\d{1,10}$/.test(text) && Number(text) >= 1 && Number(text) <= MAX_INT_ID ? Number(text) : undefined;

/** Shared `page` / `per_page` query parameters; out-of-range values are 400, not clamped. */
export const paginationQuery = {
  page: digitsInt((n) => n.min(1).max(MAX_INT_ID))
    .default(1)
    .openapi({ param: { name: "page", in: "query" }, description: "Page number, from 1", example: 1 }),
  per_page: digitsInt((n) => n.min(1).max(MAX_PER_PAGE))
    .default(DEFAULT_PER_PAGE)
    .openapi({
      param: { name: "per_page", in: "query" },
      description: `Page size, 1 to ${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE})`,
      example: 25,
    }),
};

export const PaginationSchema = z
  .object({
    page: z.number().int(),
    per_page: z.number().int(),
    total: z.number().int().openapi({ description: "Number of matching rows over all pages" }),
    next_cursor: z.string().nullable().openapi({
      description: "Pass as `cursor` for the page after this one (with the same filters); null on the last page",
    }),
  })
  .openapi("Pagination");

/** Positive integer id in a path; anything else is a 400 naming the parameter. */
export const idParam = (description: string) =>
  z.object({
    id: digitsInt((n) => n.positive().max(MAX_INT_ID)).openapi({ param: { name: "id", in: "path" }, description, example: 42 }),
  });

/** ISO 8601 UTC timestamp as sent on the wire. */
export const timestamp = () => z.string().openapi({ format: "date-time", example: "2026-11-21T13:37:00.000Z" });
export const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** Escapes %, _ and \ so user text is matched literally inside LIKE / ILIKE patterns. */
export const likeContains = (q: string) => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
