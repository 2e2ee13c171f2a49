import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { databaseFailure } from "../platform/db";
import type { AppEnv } from "./context";
import { jsonContent, schemaOnce } from "./schema-once";

/** Every `error.code` the API answers with; the OpenAPI document lists them as an enum. */
export const ERROR_CODES = [
  "invalid_request",
  "unauthenticated",
  "forbidden",
  "not_found",
  "integration_unavailable",
  "conflict",
  "rate_limited",
  "internal_error",
  "upstream_error",
  "service_unavailable",
  "rolled_back",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Typed API error: every failure the API reports is one of these. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    message: string,
    readonly details: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);
export const invalid = (message: string, details: unknown = null) => new ApiError(400, "invalid_request", message, details);

export const errorSchema = schemaOnce(() =>
  z
    .object({
      error: z.object({
        code: z
          .enum(ERROR_CODES)
          .openapi({ description: "Machine-readable error code; the HTTP status says which apply", example: "invalid_request" }),
        message: z.string().openapi({ example: "Request validation failed" }),
        details: z
          .any()
          .nullable()
          .openapi({
            description: "For validation errors: a list of { field, message } naming each offending field.",
            example: [{ field: "company_name", message: "Required" }],
          }),
        request_id: z.string().openapi({
          description: "The request's id, also the answer's `X-Request-Id` header: quote it when asking for support",
          example: "0b6f4f4e-3a1c-4a57-9d54-2f1c2d1e8b10",
        }),
      }),
    })
    .openapi("Error"),
);

const descriptions = {
  400: "invalid_request: the request is malformed or failed validation; `details` names the fields",
  401: "unauthenticated: missing, malformed, unknown or revoked bearer token",
  403: "forbidden: the token's scope does not allow this operation (a read-only token on an operation that needs write)",
  408: "invalid_request: the request body did not arrive within 10 s",
  404: "not_found: no such resource for the caller's company (another company's rows answer the same)",
  409: "integration_unavailable: the supplier integration this request needs is missing, disabled or incomplete; conflict: the resource's state does not allow the operation (`message` says why)",
  413: "invalid_request: the request body is larger than this route accepts",
  414: "invalid_request: the path or the query string is longer than 8192 bytes (`details.part` says which); answered before the token is looked at",
  412: "invalid_request: the If-Match ETag is not the resource's current one (it changed); nothing was written; `details.etag` is the current ETag",
  415: "invalid_request: a request body must be sent as application/json",
  422: "invalid_request: the Idempotency-Key was already used with a different method, path, query string or body (`details` names the header), or a body field names a row this request cannot use (a decoration's `artwork_id` that is not one of the order's artworks; `details` names the field); nothing was written",
  429: "rate_limited: more than 300 requests in 60 s for this API key; see Retry-After",
  500: "internal_error: unexpected failure (no internals are exposed)",
  502: "upstream_error: a third-party service (e.g. a supplier) failed or answered unusably; `details.reason` says how",
  503: "service_unavailable: a dependency (the database, or Redis for readiness) did not answer in time or could not be reached; nothing was half-written, retry after `Retry-After` seconds",
  504: "upstream_error: a third-party service (e.g. a supplier) did not answer within its timeout",
} as const;
export type ErrorStatus = keyof typeof descriptions;

/** Seconds a client should wait before retrying a 503. */
const RETRY_AFTER_SECONDS = 5;

/** OpenAPI `responses` entries for the given error statuses, all with the error envelope. */
export function errorResponses(...statuses: ErrorStatus[]) {
  return Object.fromEntries(statuses.map((s) => [s, { description: descriptions[s], content: jsonContent(errorSchema) }]));
}
/** Errors every authenticated route can answer. */
export const authErrors = errorResponses(401, 414, 429, 500, 503);

/** The error envelope; `request_id` is the request's (X-Request-Id), so a support request can quote one string. */
export function errorBody(requestId: string, code: ErrorCode, message: string, details: unknown = null) {
  return { error: { code, message, details, request_id: requestId } };
}

/** zod issues → [{ field, message }], one entry per offending field (unknown keys each named). */
export function issuesToDetails(issues: z.core.$ZodIssue[], prefix?: string) {
  const out: { field: string; message: string }[] = [];
  for (const issue of issues) {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ field: base ? `${base}.${key}` : key, message: "Unknown field" });
    } else {
      out.push({ field: base || "(body)", message: issue.message });
    }
  }
  return out;
}

const targetNames: Record<string, string> = { json: "body", query: "query", param: "path" };

/** defaultHook for every OpenAPIHono: validation failures become 400 invalid_request. */
export function validationHook(result: { success: boolean; error?: z.ZodError; target: string }, _c: Context<AppEnv>): void {
  if (result.success) return;
  const where = targetNames[result.target] ?? result.target;
  throw new ApiError(400, "invalid_request", `Invalid request ${where}`, issuesToDetails(result.error!.issues));
}

/** The one onError: maps everything to the error envelope; unexpected errors are logged, never exposed. */
export function onError(err: Error, c: Context<AppEnv>) {
  if (err instanceof ApiError) {
    for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
    return c.json(errorBody(c.get("requestId"), err.code, err.message, err.details), err.status);
  }
  if (err instanceof HTTPException && err.status < 500) {
    const status = err.status as ContentfulStatusCode;
    const code = status === 401 ? "unauthenticated" : status === 404 ? "not_found" : "invalid_request";
    return c.json(errorBody(c.get("requestId"), code, err.message || "Invalid request"), status);
  }
  // Database failures: one mapping for SQL over HTTP and WebSocket sessions (databaseFailure, src/platform/db.ts).
  const failure = databaseFailure(err);
  if (failure?.kind === "unavailable") {
    c.get("logger")?.warn("database unavailable", { error: err });
    c.header("Retry-After", String(RETRY_AFTER_SECONDS));
    return c.json(
      errorBody(c.get("requestId"), "service_unavailable", "The database is unavailable; retry shortly", {
        retry_after_seconds: RETRY_AFTER_SECONDS,
      }),
      503,
    );
  }
  if (failure?.kind === "input") {
    // Input the checks before the database let through: logged, so that the check can be added.
    c.get("logger")?.warn("database refused the input", { sqlstate: failure.sqlState, field: failure.field });
    return c.json(
      errorBody(c.get("requestId"), "invalid_request", "Invalid request", [{ field: failure.field, message: failure.message }]),
      400,
    );
  }
  c.get("logger")?.error("unhandled error", { error: err });
  return c.json(errorBody(c.get("requestId"), "internal_error", "An unexpected error occurred"), 500);
}
