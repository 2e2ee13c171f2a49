import { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import type { Context } from "hono";
import { ApiError } from "./errors";
import { schemaOnce } from "./schema-once";

/**
 * Conditional requests (RFC 9110): a resource's strong ETag is computed in SQL from the `updated_at`
 * (microseconds) of the rows its representation is built from, so the same expression serves the GET,
 * the write's answer and the If-Match condition inside the write statement itself.
 */

/** A strong ETag (`"…"`) from the row id and the versions (timestamps) its representation depends on. */
export function etagSql(id: unknown, versions: readonly unknown[]): SQL<string> {
  const parts = versions.map((v) => sql`coalesce(floor(extract(epoch from ${v}) * 1000000)::bigint::text, '-')`);
  return sql<string>`'"' || md5(concat_ws(':', ${id}, ${sql.join(parts, sql`, `)})) || '"'`;
}

type EntityTag = { weak: boolean; tag: string };
const ENTITY_TAG = /\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/y;

/** "*" or the entity tags of an If-Match / If-None-Match value; undefined when absent or unparseable (then ignored). */
function parseTags(value: string | undefined): "*" | EntityTag[] | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "*") return "*";
  const tags: EntityTag[] = [];
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < value.length) {
    const m = ENTITY_TAG.exec(value);
    if (!m) return undefined;
    tags.push({ weak: Boolean(m[1]), tag: m[2]! });
  }
  return tags.length ? tags : undefined;
}

/** If-None-Match uses the weak comparison: W/"x" matches "x". */
export function ifNoneMatchHits(c: Context, etag: string) {
  const tags = parseTags(c.req.header("if-none-match"));
  return tags === "*" || Boolean(tags?.some((t) => t.tag === etag));
}

/** The If-Match condition: undefined without one; "*" (any current representation) or the strong tags sent (weak ones never match). */
export function ifMatchTags(c: Context): "*" | string[] | undefined {
  const header = c.req.header("if-match");
  if (header === undefined) return undefined;
  const tags = parseTags(header);
  if (tags === undefined)
    throw new ApiError(400, "invalid_request", "Malformed If-Match header", [{ field: "If-Match", message: "Not a list of entity tags" }]);
  return tags === "*" ? "*" : tags.filter((t) => !t.weak).map((t) => t.tag);
}

/** The If-Match condition as SQL over the resource's ETag expression (for the write's WHERE). */
export function etagMatchesSql(etag: SQL, tags: "*" | string[] | undefined): SQL {
  if (tags === undefined || tags === "*") return sql`true`;
  if (!tags.length) return sql`false`;
  return sql`${etag} in (${sql.join(
    tags.map((t) => sql`${t}`),
    sql`, `,
  )})`;
}

export const etagMatches = (etag: string, tags: "*" | string[] | undefined) => tags === undefined || tags === "*" || tags.includes(etag);

/** 412 with the error envelope and the current ETag, so the client can re-read or retry. */
export const preconditionFailed = (etag: string) =>
  new ApiError(412, "invalid_request", "The resource changed since the ETag in If-Match was read", { etag }, { ETag: etag });

/** Sets the ETag header; answers 304 (no body) when If-None-Match already holds it. */
export function notModified(c: Context, etag: string) {
  c.header("ETag", etag);
  return ifNoneMatchHits(c, etag) ? c.body(null, 304) : undefined;
}

// ---- OpenAPI declarations ----

/** Longest If-Match / If-None-Match accepted (a list of about a hundred ETags). */
const MAX_HEADER = 4096;

/** The ETag response header, for the document (read only by its build, as response schemas are). */
const etagHeaders = schemaOnce(() =>
  z.object({
    ETag: z
      .string()
      .openapi({ description: "Strong entity tag of the resource as answered", example: '"5d41402abc4b2a76b9719d911017c592"' }),
  }),
);

/** Request headers of a conditional GET. */
export const ifNoneMatchHeader = schemaOnce(() =>
  z.object({
    "If-None-Match": z
      .string()
      .max(MAX_HEADER)
      .optional()
      .openapi({
        param: { in: "header" },
        description: "ETags (or `*`) the caller holds; a match (weak comparison) answers 304 without a body",
      }),
  }),
);
/** Request headers of a conditional write. */
export const ifMatchHeader = schemaOnce(() =>
  z.object({
    "If-Match": z
      .string()
      .max(MAX_HEADER)
      .optional()
      .openapi({
        param: { in: "header" },
        description:
          "Write only if the resource's current ETag is one of these (strong comparison) or `*`; otherwise 412 and nothing is written",
      }),
  }),
);

/** A 200 response carrying the ETag header. */
export const withEtag = <T extends object>(response: T) => ({
  ...response,
  get headers() {
    return etagHeaders();
  },
});

export const notModifiedResponse = {
  304: {
    description: "Not modified: the If-None-Match ETag is current (no body)",
    get headers() {
      return etagHeaders();
    },
  },
};
