/** Structured JSON log lines, one per event, always carrying the request id. */
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/*
 * Redaction happens here and nowhere else: every field of every line passes `redact`. Lines never
 * carry SQL text or its parameter values, token digests or other long hex secrets (an 8-character
 * prefix stays, enough to tell keys apart), credentials (Authorization values, URL passwords)
 * or stack traces. Errors are logged as name, message, SQLSTATE code and cause.
 */

/*
 * Every pattern runs on what callers send (a request's path is a field of its log line) and so is linear
 * in the text's length, counting the retries from each position (`npm run lint:regex` checks it).
 */

/**
 * A run of 32 or more hex digits: SHA-256 digests of tokens, raw tokens, Upstash tokens, signatures. The
 * leftmost match of a run starts at its first digit and, greedy, ends at its last: the whole run.
 */
const LONG_HEX = /([0-9a-f]{8})[0-9a-f]{24,}/gi;
const CREDENTIALS = /\b(bearer|basic)(\s+)[^\s"',;]+/gi;
/** The password of `scheme://user:password@` (matched from the `://`: a scheme before it would be rescanned from each of its characters). */
const URL_PASSWORD = /:\/\/([^\s:/@]*:)[^\s@/]+@/gi;
/** Drizzle's "Failed query: <sql>\nparams: <values>" and anything like it. */
const FAILED_QUERY = /Failed query:[\s\S]*/g;
const PARAMS = /\bparams: [^\n]*/g;
/** A stack trace's frames ("\n    at f (file:1:2)"), as a whole. */
const STACK_FRAMES = /\n[ \t]+at [\s\S]*/g;

/** What each pattern becomes, applied in this order. */
export const REDACTIONS: [RegExp, string][] = [
  [STACK_FRAMES, ""],
  [FAILED_QUERY, "Failed query (SQL and parameters not logged)"],
  [PARAMS, "params: (not logged)"],
  [CREDENTIALS, "$1$2[redacted]"],
  [URL_PASSWORD, "://$1[redacted]@"],
  [LONG_HEX, "$1…"],
];

/** Any of the patterns (case-insensitive: a superset): text it does not match (most log values) is returned as it is. */
// regex-lint: the union of the patterns above, each linear with the i flag too (tools/ops/regex-lint.test.ts checks it), is linear
const MAY_REDACT = new RegExp(REDACTIONS.map(([pattern]) => pattern.source).join("|"), "i");

export function redactText(text: string): string {
  if (!MAY_REDACT.test(text)) return text;
  return REDACTIONS.reduce((redacted, [pattern, replacement]) => redacted.replace(pattern, replacement), text);
}

function describeError(e: Error, depth: number): LogFields {
  // A failed query's message is its SQL and parameter values: its cause (the database's error) says what went wrong.
  const isQuery = "query" in e && "params" in e;
  const out: LogFields = { name: e.name, message: isQuery ? "query failed" : redactText(e.message) };
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string" && code.length <= 16) out.code = code;
  if (e.cause !== undefined && depth < 3)
    out.cause = e.cause instanceof Error ? describeError(e.cause, depth + 1) : redact(e.cause, depth + 1);
  return out;
}

/** A log value with secrets removed; `stack` fields are dropped and errors described. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactText(value);
  if (value instanceof Error) return describeError(value, depth);
  if (!value || typeof value !== "object" || depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Date) return value;
  const out: LogFields = {};
  for (const [k, v] of Object.entries(value)) if (k !== "stack") out[k] = redact(v, depth + 1);
  return out;
}

export function createLogger(base: LogFields): Logger {
  const write = (level: string, msg: string, fields?: LogFields) => {
    // As redact() of the merged object, without building it first: every request writes a line.
    const entry: LogFields = { time: new Date().toISOString(), level, msg: redactText(msg) };
    for (const source of [base, fields])
      if (source) for (const [k, v] of Object.entries(source)) if (k !== "stack") entry[k] = redact(v, 1);
    const line = JSON.stringify(entry);
    if (level === "error") console.error(line);
    else if (level === "warn") console.warn(line);
    else console.log(line);
  };
  return {
    info: (msg, fields) => write("info", msg, fields),
    warn: (msg, fields) => write("warn", msg, fields),
    error: (msg, fields) => write("error", msg, fields),
  };
}
