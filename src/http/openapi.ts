import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { TokenScope } from "../db/schema/companies";
import { authenticate, authenticateReadingFirst, requireScope } from "./auth";
import type { AppEnv } from "./context";
import { authErrors, type ErrorStatus, errorResponses } from "./errors";
import { idempotencyHeaders, replayedHeader } from "./idempotency-contract";
import { exactJsonBody, jsonBody, readBody } from "./json-body";
import { schemaOnce } from "./schema-once";

/** Success responses of an idempotent operation may be replays: they carry `Idempotent-Replayed`. */
const withReplayedHeader = (responses: RouteConfig["responses"]) =>
  Object.fromEntries(
    Object.entries(responses).map(([status, r]) =>
      status.startsWith("2") && !("$ref" in r) ? [status, { ...r, headers: { ...(r.headers as object), ...replayedHeader } }] : [status, r],
    ),
  );

export { createRouter, type Router } from "./router";
export { jsonContent, schemaOnce } from "./schema-once";

type AuthRouteConfig = Omit<RouteConfig, "security" | "middleware" | "operationId"> & {
  /** Stable verb-resource name (`listClients`): client generators name their methods after it. */
  operationId: string;
  /** Largest request body in bytes (default 1 MiB); only for routes with a body. */
  bodyLimit?: number;
  /** Error statuses particular to this route (404, 409 …); the shared ones are added for every route. */
  errors?: readonly ErrorStatus[];
  /** The token scope the operation needs: `read` for GET, `write` for anything else unless stated. */
  scope?: TokenScope;
  /** Accepts `Idempotency-Key` (the handler runs its write through `withIdempotency`). */
  idempotent?: boolean;
  /**
   * A write whose handler only reads until it awaits `c.get("admitted")()`, then writes: its reads run
   * while the rate limiter answers instead of after it (GET routes always do).
   */
  readsFirst?: boolean;
  /** Stores the body's JSON from its text, numbers as sent (checked by the handler): see `jsonBody`. */
  exactNumbers?: boolean;
  /** A POST that also changes or replaces rows that exist (a batch's updates and upserts), not only adds: see `Effects`. */
  changesExisting?: boolean;
  /** The third parties the operation reaches, at once or through what it queues: see `Effects`. */
  reaches?: readonly ThirdParty[];
};

/** A service outside the API that an operation reaches: the product suppliers, the company's accounting (QuickBooks). */
export type ThirdParty = "suppliers" | "accounting";

/**
 * What an operation does to the world, in the document (`x-effects`) for integrators and for the MCP
 * tool annotations (src/mcp/catalog.ts): `changes` is `none` for a GET, `adds` for a POST (unless it
 * declares `changesExisting`), `changes` for PATCH, PUT and DELETE (they overwrite or remove what is
 * there); `reaches` the third parties it calls or queues work for (accounting rows are delivered to
 * QuickBooks after the change). Webhook deliveries are not a third party here: they go to the endpoints
 * the company itself registered.
 */
export interface Effects {
  changes: "none" | "adds" | "changes";
  reaches: ThirdParty[];
}
export const EFFECTS_EXTENSION = "x-effects";

/** How the document says which scope an operation needs (http bearer security cannot carry scopes). */
export const SCOPE_EXTENSION = "x-required-scope";

const defaultScope = (method: RouteConfig["method"]): TokenScope => (method === "get" ? "read" : "write");

const scopeSentences: Record<TokenScope, string> = {
  read: "Scope: `read` (any token may call it).",
  write: "Scope: `write` (a read-only token gets 403 `forbidden`).",
};

/**
 * A route behind the bearer token: the security scheme and the error responses every such route
 * can give (400 from the shared guards and validation, 401, 429, 500; 408, 413 and 415 with a body;
 * 403 when it needs the write scope) are added here, with the operation's required scope (in
 * `x-required-scope` and its description), and with the route's middleware: the body reader (size
 * limit, deadline), the token lookup and rate limit, the scope check, and the JSON body guard (content type, UTF-8, storable values). A route file states only what is particular to it.
 */
export function createAuthRoute<P extends string, R extends AuthRouteConfig & { path: P }>(config: R) {
  const {
    bodyLimit,
    errors = [],
    scope = defaultScope(config.method),
    idempotent = false,
    readsFirst = false,
    exactNumbers = false,
    changesExisting = false,
    reaches = [],
    ...route
  } = config;
  const effects: Effects = {
    changes: config.method === "get" ? "none" : config.method === "post" && !changesExisting ? "adds" : "changes",
    reaches: [...reaches],
  };
  const hasBody = Boolean(route.request?.body);
  // The scope check follows the token lookup and comes before the body is parsed or the handler runs.
  const auth = readsFirst ? authenticateReadingFirst : authenticate;
  const named = nameOperation(route.operationId);
  const guard = scope === "write" ? [auth, requireScope("write")] : [auth];
  return createRoute({
    ...route,
    description: [route.description, scopeSentences[scope]].filter(Boolean).join("\n\n"),
    security: [{ bearerAuth: [] }],
    [SCOPE_EXTENSION]: scope,
    [EFFECTS_EXTENSION]: effects,
    // Body first (read within its deadline), then the token lookup, then the parse: no database
    // work waits on a slow upload, and a bad body from an unknown token still gets 401.
    middleware: hasBody ? [named, readBody(bodyLimit), ...guard, exactNumbers ? exactJsonBody : jsonBody] : [named, ...guard],
    ...(idempotent ? { request: { ...route.request, headers: idempotencyHeaders() } } : {}),
    responses: {
      ...(idempotent ? withReplayedHeader(route.responses) : route.responses),
      ...(idempotent ? errorResponses(422) : {}),
      ...errorResponses(400, ...(hasBody ? ([408, 413, 415] as const) : []), ...(scope === "write" ? ([403] as const) : []), ...errors),
      ...authErrors,
    },
    // The added error responses are thrown (ApiError), never returned: handlers keep the route's own response types.
  }) as unknown as Omit<
    R,
    "bodyLimit" | "errors" | "scope" | "idempotent" | "readsFirst" | "exactNumbers" | "changesExisting" | "reaches"
  > & { getRoutingPath(): string };
}

/** The request's operation, for the request log (src/http/request-log.ts), set before the route's other middleware can refuse it. */
const nameOperation =
  (operationId: string): MiddlewareHandler<AppEnv> =>
  (c, next) => {
    c.set("operation", operationId);
    return next();
  };

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;
/**
 * Every answer's size is bounded (docs/api-conventions.md#answer-size): no answer is larger than
 * ANSWER_MAX_BYTES, except the ones that page documents (an email thread is returned whole).
 */
export const ANSWER_MAX_BYTES = 6 * 1024 * 1024;
/**
 * A list page's rows stop before the row that would take them past this many bytes of JSON, however
 * many `per_page` asks for (its first row always comes, so a walk never stalls); the page's
 * `next_cursor` then continues right after its last row (src/http/pagination.ts). The rest of
 * ANSWER_MAX_BYTES is for the envelope and for a first row larger than the budget (no row of a list
 * comes near 6 MiB: each resource's limits).
 */
export const PAGE_BUDGET_BYTES = 4 * 1024 * 1024;

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

/** A row's id in a JSON body: a positive int4. */
export const dbId = () => z.number().int().positive().max(MAX_INT_ID);

/** A positive int4 id written in plain digits, or undefined: for parameters whose meaning depends on another. */
export const intId = (text: string | undefined) =>
  text !== undefined && /^\d{1,10}$/.test(text) && Number(text) >= 1 && Number(text) <= MAX_INT_ID ? Number(text) : undefined;

/** Shared `page` / `per_page` query parameters; out-of-range values are 400, not clamped. */
export const paginationQuery = schemaOnce(() => ({
  page: digitsInt((n) => n.min(1).max(MAX_INT_ID))
    .default(1)
    .openapi({ param: { name: "page", in: "query" }, description: "Page number, from 1", example: 1 }),
  per_page: digitsInt((n) => n.min(1).max(MAX_PER_PAGE))
    .default(DEFAULT_PER_PAGE)
    .openapi({
      param: { name: "per_page", in: "query" },
      description:
        `Page size, 1 to ${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE}); a page also stops early at ${PAGE_BUDGET_BYTES / 1048576} MiB of rows ` +
        "(follow `next_cursor`, which continues right after its last row)",
      example: 25,
    }),
}));

export const paginationSchema = schemaOnce(() =>
  z
    .object({
      page: z.number().int(),
      per_page: z.number().int(),
      total: z.number().int().openapi({ description: "Number of matching rows over all pages" }),
      next_cursor: z
        .string()
        .nullable()
        .openapi({
          description:
            "Pass as `cursor` for the page after this one (with the same filters); null on the last page. A page may hold fewer " +
            `than \`per_page\` rows while more follow (it stops at ${PAGE_BUDGET_BYTES / 1048576} MiB of rows): walk until this is null`,
        }),
    })
    .openapi("Pagination"),
);

/** What a DELETE answers: `{ deleted: true, id }` and the fields of `more`, named `name` in the document. */
export const deletedSchema = <M extends z.ZodRawShape = Record<never, never>>(
  name: string,
  description: string,
  example: number,
  more?: M,
) => z.object({ deleted: z.literal(true), id: z.number().int().openapi({ description, example }), ...(more as M) }).openapi(name);

/** Positive integer id in a path; anything else is a 400 naming the parameter. */
export const idParam = (description: string) =>
  z.object({
    id: digitsInt((n) => n.positive().max(MAX_INT_ID)).openapi({ param: { name: "id", in: "path" }, description, example: 42 }),
  });

/** ISO 8601 UTC timestamp as sent on the wire. */
export const timestamp = () => z.string().openapi({ format: "date-time", example: "2026-11-21T13:37:00.000Z" });
export const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

type SnakeCase<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<Rest>}`
  : S;
type WireValue<K, V> = K extends `${string}At` ? (V extends null ? null : string) : V;

/** Wire names (snake_case) by column name (camelCase): a serializer maps the same few dozen keys on every row. */
const wireNames = new Map<string, string>();
const wireName = (key: string) => {
  let name = wireNames.get(key);
  if (name === undefined) {
    name = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    wireNames.set(key, name);
  }
  return name;
};

/**
 * The named columns of a row under their wire names (camelCase → snake_case), timestamps (`…At`)
 * as ISO 8601 UTC strings: the one mapping every serializer uses for its plain fields.
 */
export function wireFields<R extends object, K extends keyof R & string>(
  row: R,
  keys: readonly K[],
): { [P in K as SnakeCase<P>]: WireValue<P, R[P]> } {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = row[key];
    out[wireName(key)] = key.endsWith("At") && value != null ? iso(value as Date | string) : value;
  }
  return out as { [P in K as SnakeCase<P>]: WireValue<P, R[P]> };
}

/** The column (camelCase) a wire field (snake_case) of `B` is read into. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
type ColumnOf<B> = { [W in keyof B & string]: CamelCase<W> }[keyof B & string];

/**
 * The inverse of `wireFields`: the named columns whose wire field (snake_case) the body sent, with the
 * sent value. A field left out (undefined) stays out, so an update changes only what was sent; null is
 * kept (it clears the column).
 */
export function columnFields<B extends object, K extends ColumnOf<B>>(
  body: B,
  keys: readonly K[],
): { [P in K]?: Exclude<B[SnakeCase<P> & keyof B], undefined> } {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = body[wireName(key) as keyof B];
    if (value !== undefined) out[key] = value;
  }
  return out as { [P in K]?: Exclude<B[SnakeCase<P> & keyof B], undefined> };
}

/** Escapes %, _ and \ so user text is matched literally inside LIKE / ILIKE patterns. */
export const likeContains = (q: string) => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
