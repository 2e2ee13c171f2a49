import type { Bindings } from "./env";
import { createLogger } from "./logger";

/**
 * The settings, parsed once: defaults, allowed ranges and one error message naming every wrong
 * setting. The Worker reads them from its bindings (wrangler vars and secrets); the CLI in tools/
 * parses its own from the same rules for the settings both use.
 *
 * Each setting is one rule, a plain function from the binding to its value or what is wrong with it,
 * and `parseSettings` runs a table of them. Written by hand, not with zod: every isolate parses them
 * before its first request, and zod (its functional API, `zod/mini`) with the schemas around these rules
 * cost about 3 ms of every isolate's start-up and 1 to 2 ms of its first request (docs/decisions.md).
 */

/** Bindings carry strings; an empty value counts as not set. */
const unset = (v: unknown) => (v === "" || v === null ? undefined : v);

/** What a setting's rule answers for a wrong value: its messages (one per check it fails). */
class Wrong {
  readonly messages: string[];
  constructor(message: string | string[], times = 1) {
    this.messages = typeof message === "string" ? Array.from({ length: times }, () => message) : message;
  }
}

/** One setting: from its binding (as bound: text, or a JSON value for wrangler vars) to its value, or what is wrong. */
export type Setting<T> = (binding: unknown) => T | Wrong;

/** A setting whose `rule` sees undefined when the binding is not set (absent, empty or null). */
const setting =
  <T>(rule: (value: unknown) => T | Wrong): Setting<T> =>
  (binding) =>
    rule(unset(binding));

/** A whole number written in digits, from `min` to `max`, or `fallback` when not set. */
export const wholeNumber = (name: string, unit: string, min: number, max: number, fallback: number) =>
  setting((value): number | Wrong => {
    if (value === undefined) return fallback;
    const n = typeof value === "string" && /^\s*\d{1,15}\s*$/.test(value) ? Number(value) : value;
    // Named as often as the zod checks this replaced named it: once for not a finite whole number; an integer past 2^53
    // also for its range.
    const times =
      typeof n !== "number" || !Number.isFinite(n) || !Number.isInteger(n)
        ? 1
        : Number(!Number.isSafeInteger(n)) + Number(n < min) + Number(n > max);
    return times
      ? new Wrong(`${name} must be a whole number of ${unit} from ${min} to ${max} (got ${JSON.stringify(n)})`, times)
      : (n as number);
  });

/** A text setting's value, trimmed, or what is wrong with it (never the value: it may be a secret). */
const text = (name: string, value: unknown, pattern?: RegExp, shape?: string): string | Wrong => {
  if (typeof value !== "string") return new Wrong(`${name} must be text`);
  const trimmed = value.trim();
  return !pattern || pattern.test(trimmed) ? trimmed : new Wrong(`${name} must be ${shape}`);
};

/** A free-text setting, trimmed, or undefined when not set. */
const optionalText = (name: string, pattern?: RegExp, shape?: string) =>
  setting((value) => (value === undefined ? undefined : text(name, value, pattern, shape)));

/** A text setting as given (not trimmed), or `fallback` when not set. */
export const textOr = (name: string, fallback: string) =>
  setting((value) => (value === undefined ? fallback : typeof value === "string" ? value : new Wrong(`${name} must be text`)));

/** One of `choices`, or the first when not set. */
const choice = <const C extends readonly [string, ...string[]]>(choices: C, message: string) =>
  setting((value): C[number] | Wrong =>
    value === undefined ? choices[0] : choices.includes(value as string) ? (value as C[number]) : new Wrong(message),
  );

const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;
const POSTGRES_URL_SHAPE = "a postgres:// or postgresql:// connection string";
/** scheme://host[:port], as a browser sends it in `Origin`. */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

/** The settings the Worker and the CLI share; DATABASE_URL is optional here (the CLI has a local fallback). */
export const sharedSettings = {
  DATABASE_URL: optionalText("DATABASE_URL", POSTGRES_URL, POSTGRES_URL_SHAPE),
  NEON_LOCAL_PROXY: optionalText("NEON_LOCAL_PROXY", /^[\w.-]+:\d{1,5}$/, "host:port of the local WebSocket proxy"),
  UPSTASH_REDIS_REST_URL: optionalText("UPSTASH_REDIS_REST_URL", /^https?:\/\/\S+$/, "an http:// or https:// URL"),
  UPSTASH_REDIS_REST_TOKEN: optionalText("UPSTASH_REDIS_REST_TOKEN"),
  RATE_LIMIT_BACKEND: choice(["upstash", "memory"], "RATE_LIMIT_BACKEND must be upstash or memory"),
};

export const DEFAULT_SOURCE_TIMEOUT_MS = 4000;
/** Time a database call may take, connecting and waiting for a free slot included: under the 5 s a caller waits for a 503. */
export const DEFAULT_DB_DEADLINE_MS = 4000;
/** Waits before webhook retries, in seconds: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts over about 27 hours). */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];
/**
 * How long an isolate trusts a token it has checked without asking the database again: the most a
 * revocation takes to reach every isolate. A setting may shorten it (0: check every request), never lengthen it.
 */
export const MAX_TOKEN_CACHE_TTL_MS = 30_000;

/** "true" or "false" (default false). */
const flag = (name: string) =>
  setting((value) =>
    value === undefined || value === "false"
      ? false
      : value === "true"
        ? true
        : new Wrong(`${name} must be true or false (got ${JSON.stringify(value)})`),
  );

/**
 * A comma-separated list, items trimmed: each item read by `item` (undefined when wrong: one message per
 * wrong item), `fallback` when not set. `dropEmpty`: empty items are left out (a blank list is empty);
 * otherwise each is wrong, and so is a blank value. More than `max` items: only `tooMany` is said.
 */
const list = <T>(
  item: (text: string) => T | undefined,
  wrong: (got: unknown) => string,
  fallback: T[],
  opts: { dropEmpty?: boolean; max?: number; tooMany?: string } = {},
): Setting<T[]> =>
  setting((value) => {
    // A copy: a caller changing its settings' list must not change the next isolate-wide parse's default.
    if (value === undefined) return [...fallback];
    if (typeof value !== "string" || (!opts.dropEmpty && !value.trim())) return new Wrong(wrong(value));
    const texts = value.split(",").map((t) => t.trim());
    const items = opts.dropEmpty ? texts.filter(Boolean) : texts;
    if (opts.max !== undefined && items.length > opts.max) return new Wrong(opts.tooMany ?? wrong(value));
    const read = items.map(item);
    const messages = items.flatMap((t, i) => (read[i] === undefined ? [wrong(t)] : []));
    return messages.length ? new Wrong(messages) : (read as T[]);
  });

/** Every setting the Worker reads. */
export const workerSettings = {
  ...sharedSettings,
  DATABASE_URL: setting((value) =>
    value === undefined
      ? new Wrong(
          "DATABASE_URL is not set: give the Worker a PostgreSQL connection string (`wrangler secret put DATABASE_URL`, or .dev.vars locally)",
        )
      : text("DATABASE_URL", value, POSTGRES_URL, POSTGRES_URL_SHAPE),
  ),
  /** Per-source time budget of product lookups (suppliers and storage). */
  PRODUCT_SOURCE_TIMEOUT_MS: wholeNumber("PRODUCT_SOURCE_TIMEOUT_MS", "milliseconds", 100, 30_000, DEFAULT_SOURCE_TIMEOUT_MS),
  /** Deadline of one database call (queueing for the per-isolate cap, connecting, the answer); past it, 503. */
  DB_DEADLINE_MS: wholeNumber("DB_DEADLINE_MS", "milliseconds", 100, 30_000, DEFAULT_DB_DEADLINE_MS),
  /** Database calls one isolate runs at once; more wait, within their deadline. */
  DB_MAX_CONCURRENCY: wholeNumber("DB_MAX_CONCURRENCY", "calls", 1, 1000, 32),
  /** How long a checked token is trusted per isolate (0: check every request). */
  TOKEN_CACHE_TTL_MS: wholeNumber("TOKEN_CACHE_TTL_MS", "milliseconds", 0, MAX_TOKEN_CACHE_TTL_MS, MAX_TOKEN_CACHE_TTL_MS),
  /** Delivery attempts before an accounting outbox row is dead. */
  ACCOUNTING_MAX_ATTEMPTS: wholeNumber("ACCOUNTING_MAX_ATTEMPTS", "attempts", 1, 100, 8),
  /** First accounting retry delay, doubled per attempt up to an hour. */
  ACCOUNTING_RETRY_BASE_SECONDS: wholeNumber("ACCOUNTING_RETRY_BASE_SECONDS", "seconds", 0, 3600, 30),
  /**
   * Webhook endpoints may be http://127.0.0.1[:port] or http://localhost[:port] (the local stack and tests
   * set it); off by default, so a deployed Worker only delivers to public https:// hosts.
   */
  WEBHOOK_ALLOW_LOCAL_HTTP: flag("WEBHOOK_ALLOW_LOCAL_HTTP"),
  /** Browser origins allowed to call the API (CORS); none by default. */
  CORS_ALLOWED_ORIGINS: list(
    (origin) => (ORIGIN.test(origin) ? origin : undefined),
    (got) => `CORS_ALLOWED_ORIGINS must be a comma-separated list of origins such as https://app.example.com (got ${JSON.stringify(got)})`,
    [],
    { dropEmpty: true },
  ),
  /** Webhook delivery: time one attempt may take (connecting, the answer, reading its first bytes). */
  WEBHOOK_TIMEOUT_MS: wholeNumber("WEBHOOK_TIMEOUT_MS", "milliseconds", 100, 30_000, 10_000),
  /**
   * Webhook delivery: the wait before each retry, in seconds (comma-separated); a delivery gets one
   * attempt more than the list has entries, then it is failed. The default spans about 27 hours.
   */
  WEBHOOK_RETRY_SCHEDULE: list(
    (seconds) => (/^\d{1,6}$/.test(seconds) ? Number(seconds) : undefined),
    (got) => `WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of 1 to 20 whole numbers of seconds (got ${JSON.stringify(got)})`,
    DEFAULT_WEBHOOK_RETRY_SCHEDULE,
    { max: 20, tooMany: "WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of 1 to 20 whole numbers of seconds" },
  ),
  /** Webhook delivery: an endpoint failing without a success this long (and at least WEBHOOK_DISABLE_MIN_FAILURES times) is disabled. */
  WEBHOOK_DISABLE_AFTER_HOURS: wholeNumber("WEBHOOK_DISABLE_AFTER_HOURS", "hours", 0, 24 * 90, 72),
  WEBHOOK_DISABLE_MIN_FAILURES: wholeNumber("WEBHOOK_DISABLE_MIN_FAILURES", "failed attempts", 1, 10_000, 10),
  /** Settings area (docs/settings.md): a session unused this long ends (NIST 800-63B AAL2: 30 minutes). */
  SETTINGS_SESSION_IDLE_SECONDS: wholeNumber("SETTINGS_SESSION_IDLE_SECONDS", "seconds", 1, 24 * 3600, 30 * 60),
  /** Settings area: a session ends this long after sign-in however much it is used (AAL2: 12 hours). */
  SETTINGS_SESSION_LIFETIME_SECONDS: wholeNumber("SETTINGS_SESSION_LIFETIME_SECONDS", "seconds", 1, 30 * 24 * 3600, 12 * 3600),
  /** Settings area: sign-in attempts per e-mail address per SIGN_IN_WINDOW_SECONDS. */
  SIGN_IN_LIMIT_PER_ADDRESS: wholeNumber("SIGN_IN_LIMIT_PER_ADDRESS", "attempts", 1, 1000, 10),
  /** Settings area: sign-in attempts per client (IP address) per SIGN_IN_WINDOW_SECONDS. */
  SIGN_IN_LIMIT_PER_CLIENT: wholeNumber("SIGN_IN_LIMIT_PER_CLIENT", "attempts", 1, 10_000, 50),
  SIGN_IN_WINDOW_SECONDS: wholeNumber("SIGN_IN_WINDOW_SECONDS", "seconds", 1, 24 * 3600, 15 * 60),
};

/** What a table of settings parses to: each setting's value (a setting not set and without a default is left out). */
export type SettingsOf<S extends Record<string, Setting<unknown>>> = { [K in keyof S]: Exclude<ReturnType<S[K]>, Wrong> };

export type Config = SettingsOf<typeof workerSettings>;

/** A wrong or missing setting; the message names each one and what it accepts. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Parses `source` by the table of `settings`, or throws one ConfigError listing every offending setting, in the table's order. */
export function parseSettings<S extends Record<string, Setting<unknown>>>(settings: S, source: Record<string, unknown>): SettingsOf<S> {
  const out: Record<string, unknown> = {};
  const messages: string[] = [];
  for (const [name, rule] of Object.entries(settings)) {
    const value = rule(source[name]);
    if (value instanceof Wrong) messages.push(...value.messages);
    else if (value !== undefined) out[name] = value;
  }
  if (messages.length) throw new ConfigError(`Invalid configuration: ${messages.join("; ")}`);
  return out as SettingsOf<S>;
}

/** Bindings do not change within an isolate: each env object is parsed (and a failure logged) once. */
const parsed = new WeakMap<object, Config | ConfigError>();

/** The Worker's settings for these bindings; throws ConfigError (logged once, as one line) when one is wrong. */
export function workerConfig(env: Bindings): Config {
  let result = parsed.get(env);
  if (!result) {
    try {
      result = parseSettings(workerSettings, env as unknown as Record<string, unknown>);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      result = e;
      createLogger({}).error(e.message);
    }
    parsed.set(env, result);
  }
  if (result instanceof ConfigError) throw result;
  return result;
}
