import { createMiddleware } from "hono/factory";
import { readText } from "../platform/read-text";
import type { AppEnv } from "./context";
import { ApiError, invalid } from "./errors";

export const DEFAULT_BODY_LIMIT = 1024 * 1024; // 1 MiB

/**
 * Deepest JSON nesting a body may have (the body itself is level 1). PostgreSQL's jsonb parser
 * fails with an internal error on very deep nesting; real payloads nest a handful of levels.
 */
export const MAX_JSON_DEPTH = 64;

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;
const COMPANY_KEYS = ["company_id", "companyId"];

/**
 * Guards every request body before validation: size limit (413, `readLimited`), JSON content
 * type (415), a body present and well-formed (400), no company identifier (the company comes
 * from the token), and nothing PostgreSQL cannot store (400 naming the field), so such input never
 * turns into a 500. The text and the parse are kept on the request, so nothing parses the body twice.
 * Route middleware of every route with a body (`createAuthRoute`), so it runs only for a matched route.
 */
export const jsonBody = (maxBytes = DEFAULT_BODY_LIMIT) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const text = await readLimited(c.req.raw, maxBytes);
    // Hono reads bodies once: later c.req.text() (routes keeping exact JSON) gets this text.
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    if (text.length === 0) throw invalid("Request body is required: send a JSON object");
    if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) {
      throw new ApiError(415, "invalid_request", "Request body must be sent with Content-Type: application/json", {
        content_type: c.req.header("content-type") ?? null,
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw invalid("Request body is not valid JSON");
    }
    if (body && typeof body === "object" && !Array.isArray(body)) {
      const found = COMPANY_KEYS.filter((k) => k in body);
      if (found.length) {
        throw invalid(
          "The body must not carry a company identifier; the company comes from the API token",
          found.map((field) => ({ field, message: "Company identifiers are not accepted" })),
        );
      }
    }
    const unstorable = unstorableJson(body);
    if (unstorable) throw unstorableError(unstorable);
    // Validators call c.req.json(), which in Hono re-parses the text: hand them this parse instead.
    c.req.json = (() => Promise.resolve(body)) as typeof c.req.json;
    await next();
  });

/** How much of a rejected body is read and dropped so the client still receives the 413. */
const DISCARD_CAP = 32 * 1024 * 1024;

/**
 * The body as text, at most `maxBytes` (413 above, also for a declared Content-Length above it).
 * An oversized upload is read to its end (up to DISCARD_CAP) and dropped before answering: a server
 * that answers while the client is still sending leaves the connection broken (the client sees a
 * reset, or its next request hangs). Hono's bodyLimit stops reading and keeps the stream locked,
 * so it cannot drain a chunked upload; hence this small reader.
 */
export async function readLimited(req: Request, maxBytes: number): Promise<string> {
  const declaredOver = Number(req.headers.get("content-length") ?? Number.NaN) > maxBytes;
  const text = await readText(req.body, maxBytes, DISCARD_CAP);
  if (text === undefined || declaredOver) {
    throw new ApiError(413, "invalid_request", `Request body exceeds the limit of ${maxBytes} bytes`, { max_bytes: maxBytes });
  }
  return text;
}

export interface Unstorable {
  /** Keys and indexes from the body down to the offending value; empty for the body itself. */
  path: (string | number)[];
  message: string;
}

/** The 400 for a value that cannot be stored, naming its field (`messages.3.body`). */
export const unstorableError = ({ path, message }: Unstorable) =>
  invalid("Request body holds a value that cannot be stored", [{ field: path.join(".") || "(body)", message }]);

/** A lone UTF-16 surrogate: with the `u` flag a proper pair is one code point and does not match. */
const LONE_SURROGATE = /\p{Surrogate}/u;

const badString = (s: string, what: "Strings" | "Keys") =>
  s.includes("\0")
    ? `${what} cannot contain the NUL character (U+0000)`
    : LONE_SURROGATE.test(s)
      ? `${what} must be valid Unicode: a lone surrogate (such as \\ud800) cannot be stored`
      : undefined;

/**
 * Finds what PostgreSQL cannot store: U+0000 or a lone surrogate in any string or key (jsonb
 * refuses both, text refuses U+0000 and the driver's UTF-8 would turn a lone surrogate into U+FFFD)
 * and nesting deeper than MAX_JSON_DEPTH. Iterative, so a hostile body cannot
 * overflow the JS stack; only containers go on the stack and a path is built per container, since
 * bodies may hold millions of scalars. Returns the path of the first offender and why, or undefined.
 */
export function unstorableJson(root: unknown): Unstorable | undefined {
  if (typeof root === "string") {
    const message = badString(root, "Strings");
    return message ? { path: [], message } : undefined;
  }
  const stack: { value: object; path: (string | number)[] }[] = root && typeof root === "object" ? [{ value: root, path: [] }] : [];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (path.length >= MAX_JSON_DEPTH) return { path, message: `JSON nests deeper than ${MAX_JSON_DEPTH} levels` };
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    const length = keys ? keys.length : (value as unknown[]).length;
    for (let i = 0; i < length; i++) {
      const key = keys ? keys[i] : i;
      if (keys) {
        const message = badString(keys[i], "Keys");
        if (message) return { path, message };
      }
      const child = (value as Record<string | number, unknown>)[key];
      if (typeof child === "string") {
        const message = badString(child, "Strings");
        if (message) return { path: [...path, key], message };
      } else if (child && typeof child === "object") stack.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}
