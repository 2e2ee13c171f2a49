import type { Context, Next } from "hono";
import { createMiddleware } from "hono/factory";
import { withDeadline } from "../platform/deadline";
import { readBytes } from "../platform/read-text";
import type { AppEnv } from "./context";
import { ApiError, invalid } from "./errors";
import { inexactNumber, type Unstorable } from "./exact-json";

export const DEFAULT_BODY_LIMIT = 1024 * 1024; // 1 MiB
/** The whole body must arrive within this; a client that trickles it gets 408. */
export const BODY_READ_TIMEOUT_MS = 10_000;

/**
 * Deepest JSON nesting a body may have (the body itself is level 1). PostgreSQL's jsonb parser
 * fails with an internal error on very deep nesting; real payloads nest a handful of levels.
 */
export const MAX_JSON_DEPTH = 64;

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;
/** The charset parameter of a media type, quoted or not. */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;
const UTF8 = /^utf-?8$/i;
const COMPANY_KEYS = ["company_id", "companyId"];
/** Throws on bytes that are not UTF-8, instead of writing U+FFFD. A leading BOM is dropped. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Reads the request body (413 over `maxBytes`, 408 if it does not arrive within BODY_READ_TIMEOUT_MS)
 * and keeps its bytes on the request for `jsonBody`. Route middleware of every route with a body
 * (`createAuthRoute`), ahead of the token lookup, so a slow or oversized upload is settled before
 * any database work.
 */
export const readBody = (maxBytes = DEFAULT_BODY_LIMIT) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const bytes = await readLimited(c.req.raw, maxBytes);
    (c.req.bodyCache as Record<string, unknown>).arrayBuffer = Promise.resolve(bytes.buffer);
    await next();
  });

/**
 * Guards every request body before validation: JSON content type in UTF-8 (415), a body present,
 * valid UTF-8 and well-formed JSON (400), no company identifier (the company comes from the token),
 * nothing PostgreSQL cannot store (400 naming the field), so such input never turns into a 500, and
 * no number that JSON.parse would turn into another value (400 naming the field: an amount of
 * `1e-400` is not quietly 0). The text and the parse are kept on the request, so nothing parses the
 * body twice.
 */
export const jsonBody = createMiddleware<AppEnv>((c, next) => guardJsonBody(c, next, false));
/**
 * The same for a route that stores the body's JSON from its text, numbers exactly as sent: it checks
 * them itself (`unstorableNumbers`), so numbers JSON.parse would change are not refused here.
 */
export const exactJsonBody = createMiddleware<AppEnv>((c, next) => guardJsonBody(c, next, true));

async function guardJsonBody(c: Context<AppEnv>, next: Next, exactNumbers: boolean) {
  const cached = (c.req.bodyCache as Record<string, unknown>).arrayBuffer as Promise<ArrayBuffer> | undefined;
  const bytes = cached ? new Uint8Array(await cached) : await readLimited(c.req.raw, DEFAULT_BODY_LIMIT);
  if (bytes.byteLength === 0) throw invalid("Request body is required: send a JSON object");
  const contentType = c.req.header("content-type") ?? "";
  if (!JSON_TYPE.test(contentType)) {
    throw new ApiError(415, "invalid_request", "Request body must be sent with Content-Type: application/json", {
      content_type: contentType || null,
    });
  }
  const charset = CHARSET.exec(contentType)?.[1];
  if (charset !== undefined && !UTF8.test(charset)) {
    throw new ApiError(415, "invalid_request", "Request body must be JSON in UTF-8; leave out the charset or send charset=utf-8", {
      content_type: contentType,
    });
  }
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw invalid("Request body is not valid UTF-8", [{ field: "(body)", message: "Contains a byte sequence that is not UTF-8" }]);
  }
  // Hono reads bodies once: later c.req.text() (routes keeping exact JSON) gets this text.
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
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
  const unstorable = unstorableJson(body) ?? (exactNumbers ? undefined : inexactNumber(text));
  if (unstorable) throw unstorableError(unstorable);
  // Validators call c.req.json(), which in Hono re-parses the text: hand them this parse instead.
  c.req.json = (() => Promise.resolve(body)) as typeof c.req.json;
  await next();
}

/** How much of a rejected body is read and dropped so the client still receives the 413. */
const DISCARD_CAP = 32 * 1024 * 1024;

/**
 * The body's bytes, at most `maxBytes` (413 above, also for a declared Content-Length above it),
 * within BODY_READ_TIMEOUT_MS (408 otherwise). An oversized upload is read to its end (up to
 * DISCARD_CAP) and dropped before answering: a server that answers while the client is still
 * sending leaves the connection broken (the client sees a reset, or its next request hangs).
 * Hono's bodyLimit stops reading and keeps the stream locked, so it cannot drain a chunked upload;
 * hence this small reader.
 */
export async function readLimited(req: Request, maxBytes: number, timeoutMs = BODY_READ_TIMEOUT_MS): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? Number.NaN);
  const declaredOver = declared > maxBytes;
  const bytes = await withDeadline(
    timeoutMs,
    (signal) => readBytes(req.body, maxBytes, DISCARD_CAP, signal, Number.isSafeInteger(declared) ? declared : undefined),
    () =>
      new ApiError(408, "invalid_request", `Request body was not received within ${timeoutMs / 1000} s`, {
        timeout_seconds: timeoutMs / 1000,
      }),
  );
  if (bytes === undefined || declaredOver) {
    throw new ApiError(413, "invalid_request", `Request body exceeds the limit of ${maxBytes} bytes`, { max_bytes: maxBytes });
  }
  return bytes;
}

/**
 * Reads and drops the body of a request answered before its body was read (a body already read is
 * left alone), so the client receives the answer instead of a reset connection. Nothing is kept;
 * bounded by DISCARD_CAP and the read deadline.
 */
export async function discardBody(req: Request): Promise<void> {
  if (!req.body || req.bodyUsed) return;
  await withDeadline(BODY_READ_TIMEOUT_MS, (signal) => readBytes(req.body, 0, DISCARD_CAP, signal)).catch(() => undefined);
}

/**
 * The app's outermost middleware: whatever answered (a 500 for missing settings, a 401 before routing,
 * 404/405, a refused parameter) and whether or not it read the body, an unread body is drained before
 * the answer leaves.
 */
export const drainUnreadBody = createMiddleware(async (c, next) => {
  try {
    await next();
  } finally {
    await discardBody(c.req.raw);
  }
});

/** The 400 for a value that cannot be stored, naming its field (`messages.3.body`). */
export const unstorableError = ({ path, message }: Unstorable) =>
  invalid("Request body holds a value that cannot be stored", [{ field: path.join(".") || "(body)", message }]);

/**
 * Whether a string has no lone surrogate (`\ud800` alone: not Unicode, so neither storable nor encodable
 * in a URL). The engine's own `isWellFormed` (ES2024, in workerd and Node 20; this project's types are
 * ES2022): one native pass, where a `/\p{Surrogate}/u` test runs the regex engine over every character.
 */
export const wellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

const badString = (s: string, what: "Strings" | "Keys") =>
  s.includes("\0")
    ? `${what} cannot contain the NUL character (U+0000)`
    : !wellFormed(s)
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
