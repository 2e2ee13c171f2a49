import { describe, expect, it } from "vitest";
import { ConfigError, parseSettings, workerSettings } from "./config";

const parse = (source: Record<string, unknown>) =>
  parseSettings(workerSettings, { DATABASE_URL: "postgres://u:p@db.example/crm", ...source });

describe("worker settings", () => {
  it("fills in the defaults; an empty value counts as not set", () => {
    expect(parse({ RATE_LIMIT_BACKEND: "", PRODUCT_SOURCE_TIMEOUT_MS: "" })).toEqual({
      DATABASE_URL: "postgres://u:p@db.example/crm",
      RATE_LIMIT_BACKEND: "upstash",
      PRODUCT_SOURCE_TIMEOUT_MS: 4000,
      ACCOUNTING_MAX_ATTEMPTS: 8,
      ACCOUNTING_RETRY_BASE_SECONDS: 30,
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_RETRY_SCHEDULE: [5, 300, 1800, 7200, 18_000, 36_000, 36_000],
      WEBHOOK_DISABLE_AFTER_HOURS: 72,
      WEBHOOK_DISABLE_MIN_FAILURES: 10,
      CORS_ALLOWED_ORIGINS: [],
      DB_DEADLINE_MS: 4000,
      DB_MAX_CONCURRENCY: 32,
      TOKEN_CACHE_TTL_MS: 30_000,
      WEBHOOK_ALLOW_LOCAL_HTTP: false,
      SETTINGS_SESSION_IDLE_SECONDS: 1800,
      SETTINGS_SESSION_LIFETIME_SECONDS: 43_200,
      SIGN_IN_LIMIT_PER_ADDRESS: 10,
      SIGN_IN_LIMIT_PER_CLIENT: 50,
      SIGN_IN_WINDOW_SECONDS: 900,
    });
  });

  it("reads WEBHOOK_ALLOW_LOCAL_HTTP as true or false only", () => {
    expect(parse({ WEBHOOK_ALLOW_LOCAL_HTTP: "true" }).WEBHOOK_ALLOW_LOCAL_HTTP).toBe(true);
    expect(parse({ WEBHOOK_ALLOW_LOCAL_HTTP: "false" }).WEBHOOK_ALLOW_LOCAL_HTTP).toBe(false);
    expect(parse({ WEBHOOK_ALLOW_LOCAL_HTTP: "" }).WEBHOOK_ALLOW_LOCAL_HTTP).toBe(false);
    expect(() => parse({ WEBHOOK_ALLOW_LOCAL_HTTP: "yes" })).toThrow(/WEBHOOK_ALLOW_LOCAL_HTTP must be true or false \(got "yes"\)/);
  });

  it("reads CORS_ALLOWED_ORIGINS as a comma-separated list of origins", () => {
    expect(parse({ CORS_ALLOWED_ORIGINS: " https://app.example.com, http://localhost:5173 ," }).CORS_ALLOWED_ORIGINS).toEqual([
      "https://app.example.com",
      "http://localhost:5173",
    ]);
    expect(() => parse({ CORS_ALLOWED_ORIGINS: "https://app.example.com/path" })).toThrow(
      /CORS_ALLOWED_ORIGINS must be a comma-separated list of origins/,
    );
    expect(() => parse({ CORS_ALLOWED_ORIGINS: "*" })).toThrow(ConfigError);
  });

  it("reads whole numbers within their range, at both ends", () => {
    expect(parse({ PRODUCT_SOURCE_TIMEOUT_MS: "100", ACCOUNTING_MAX_ATTEMPTS: "100", ACCOUNTING_RETRY_BASE_SECONDS: "0" })).toMatchObject({
      PRODUCT_SOURCE_TIMEOUT_MS: 100,
      ACCOUNTING_MAX_ATTEMPTS: 100,
      ACCOUNTING_RETRY_BASE_SECONDS: 0,
    });
    expect(parse({ PRODUCT_SOURCE_TIMEOUT_MS: 30_000 }).PRODUCT_SOURCE_TIMEOUT_MS).toBe(30_000);
  });

  it.each([
    ["PRODUCT_SOURCE_TIMEOUT_MS", "99", "from 100 to 30000"],
    ["PRODUCT_SOURCE_TIMEOUT_MS", "30001", "from 100 to 30000"],
    ["PRODUCT_SOURCE_TIMEOUT_MS", "4e3", "from 100 to 30000"],
    ["PRODUCT_SOURCE_TIMEOUT_MS", "1.5", "from 100 to 30000"],
    ["ACCOUNTING_MAX_ATTEMPTS", "0", "from 1 to 100"],
    ["ACCOUNTING_RETRY_BASE_SECONDS", "-1", "from 0 to 3600"],
    ["RATE_LIMIT_BACKEND", "redis", "upstash or memory"],
    ["UPSTASH_REDIS_REST_URL", "redis://x", "http:// or https://"],
    ["DATABASE_URL", "mysql://x", "postgres:// or postgresql://"],
  ])("%s=%s is refused, naming the setting and what it accepts", (name, value, accepts) => {
    expect(() => parse({ [name]: value })).toThrow(ConfigError);
    expect(() => parse({ [name]: value })).toThrow(new RegExp(`${name} must .*${accepts.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`));
  });

  it("names every wrong setting in one message; a missing DATABASE_URL says so", () => {
    const error = (() => {
      try {
        parseSettings(workerSettings, { PRODUCT_SOURCE_TIMEOUT_MS: "x", ACCOUNTING_MAX_ATTEMPTS: "999" });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toMatch(/DATABASE_URL is not set.*PRODUCT_SOURCE_TIMEOUT_MS.*ACCOUNTING_MAX_ATTEMPTS/);
  });

  it("reads JSON-typed bindings (wrangler vars may be numbers or booleans) by the same rules, and trims text", () => {
    expect(parse({ PRODUCT_SOURCE_TIMEOUT_MS: 150, WEBHOOK_TIMEOUT_MS: " 0150 " })).toMatchObject({
      PRODUCT_SOURCE_TIMEOUT_MS: 150,
      WEBHOOK_TIMEOUT_MS: 150,
    });
    for (const [value, shown] of [
      [1.5, "1.5"],
      [true, "true"],
      [{}, "{}"],
      [Number.NaN, "null"],
    ] as const)
      expect(() => parse({ PRODUCT_SOURCE_TIMEOUT_MS: value })).toThrow(
        new RegExp(
          `^Invalid configuration: PRODUCT_SOURCE_TIMEOUT_MS must be a whole number of milliseconds from 100 to 30000 \\(got ${shown.replace(/[{}]/g, "\\$&")}\\)$`,
        ),
      );
    expect(() => parse({ WEBHOOK_ALLOW_LOCAL_HTTP: true })).toThrow(/WEBHOOK_ALLOW_LOCAL_HTTP must be true or false \(got true\)/);
    expect(() => parse({ UPSTASH_REDIS_REST_URL: 5 })).toThrow(/^Invalid configuration: UPSTASH_REDIS_REST_URL must be text$/);
    const settings = parse({ DATABASE_URL: "  postgres://a@b/c  ", UPSTASH_REDIS_REST_TOKEN: " tok " });
    expect(settings).toMatchObject({ DATABASE_URL: "postgres://a@b/c", UPSTASH_REDIS_REST_TOKEN: "tok" });
    expect("NEON_LOCAL_PROXY" in settings).toBe(false);
  });

  it("never echoes a secret's value", () => {
    expect(() => parse({ DATABASE_URL: "mysql://user:hunter2@db" })).toThrow(/^(?!.*hunter2)/s);
  });

  it("reads WEBHOOK_RETRY_SCHEDULE as comma-separated seconds", () => {
    expect(parse({ WEBHOOK_RETRY_SCHEDULE: " 0, 1,30 " }).WEBHOOK_RETRY_SCHEDULE).toEqual([0, 1, 30]);
    expect(parse({ WEBHOOK_RETRY_SCHEDULE: "" }).WEBHOOK_RETRY_SCHEDULE).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);
    const schedule = "WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of 1 to 20 whole numbers of seconds";
    expect(() => parse({ WEBHOOK_RETRY_SCHEDULE: "5,soon" })).toThrow(`Invalid configuration: ${schedule} (got "soon")`);
    // An empty item is wrong, and so is a blank list; each wrong item is named.
    expect(() => parse({ WEBHOOK_RETRY_SCHEDULE: "5,,1234567" })).toThrow(
      `Invalid configuration: ${schedule} (got ""); ${schedule} (got "1234567")`,
    );
    expect(() => parse({ WEBHOOK_RETRY_SCHEDULE: " " })).toThrow(`Invalid configuration: ${schedule} (got " ")`);
    expect(() => parse({ WEBHOOK_RETRY_SCHEDULE: 5 })).toThrow(`Invalid configuration: ${schedule} (got 5)`);
    // Too many: that alone is said, whatever the items.
    expect(parse({ WEBHOOK_RETRY_SCHEDULE: Array(20).fill("1").join(",") }).WEBHOOK_RETRY_SCHEDULE).toHaveLength(20);
    expect(() => parse({ WEBHOOK_RETRY_SCHEDULE: [...Array(21).fill("1"), "x"].join(",") })).toThrow(
      new RegExp(`^Invalid configuration: ${schedule}$`),
    );
  });

  it("gives each parse its own copy of a list's default", () => {
    parse({}).WEBHOOK_RETRY_SCHEDULE.push(1);
    parse({}).CORS_ALLOWED_ORIGINS.push("https://changed.example");
    expect(parse({})).toMatchObject({ WEBHOOK_RETRY_SCHEDULE: [5, 300, 1800, 7200, 18_000, 36_000, 36_000], CORS_ALLOWED_ORIGINS: [] });
  });

  it("reads a blank CORS_ALLOWED_ORIGINS as none, and names a binding that is not text", () => {
    expect(parse({ CORS_ALLOWED_ORIGINS: " , " }).CORS_ALLOWED_ORIGINS).toEqual([]);
    expect(() => parse({ CORS_ALLOWED_ORIGINS: 5 })).toThrow(
      "Invalid configuration: CORS_ALLOWED_ORIGINS must be a comma-separated list of origins such as https://app.example.com (got 5)",
    );
    expect(() => parse({ CORS_ALLOWED_ORIGINS: "a,https://ok.example,b" })).toThrow(/\(got "a"\); CORS_ALLOWED_ORIGINS .*\(got "b"\)$/);
  });

  it("leaves out an optional setting that is not set, even when its binding is present but empty", () => {
    const settings = parse({ NEON_LOCAL_PROXY: "", UPSTASH_REDIS_REST_TOKEN: null });
    expect(Object.keys(settings)).not.toContain("NEON_LOCAL_PROXY");
    expect(Object.keys(settings)).not.toContain("UPSTASH_REDIS_REST_TOKEN");
  });
});
