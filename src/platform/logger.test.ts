import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger, redactText } from "./logger";

const digest = "3f9a".repeat(16);

describe("log redaction", () => {
  afterEach(() => vi.restoreAllMocks());

  it("keeps an 8-character prefix of long hex strings, nothing more", () => {
    expect(redactText(`key ${digest} used`)).toBe("key 3f9a3f9a… used");
    expect(redactText("short abcdef0123456789 stays")).toBe("short abcdef0123456789 stays");
  });

  it("removes credentials, URL passwords and stack frames", () => {
    expect(redactText("Authorization: bearer abc.def")).toBe("Authorization: bearer [redacted]");
    expect(redactText("Basic dXNlcjpwYXNz, then")).toBe("Basic [redacted], then");
    expect(redactText("connect postgres://app:s3cret@db.example:5432/crm failed")).toBe(
      "connect postgres://app:[redacted]@db.example:5432/crm failed",
    );
    expect(redactText("Error: boom\n    at f (src/x.ts:1:2)\n    at g (src/y.ts:3:4)")).toBe("Error: boom");
  });

  it("redacts by the same rules on text built against the patterns (which the old ones took seconds on)", () => {
    const dots = "a.".repeat(50_000); // each `a` once began a URL scheme, rescanned to the end
    expect(redactText(dots)).toBe(dots);
    expect(redactText(`${dots}x://u:pw@host`)).toBe(`${dots}x://u:[redacted]@host`);
    const hexRuns = `${"0".repeat(31)}-`.repeat(3_000); // runs one digit short of a secret
    expect(redactText(hexRuns)).toBe(hexRuns);
    expect(redactText(`${hexRuns}${"0".repeat(40)}`)).toBe(`${hexRuns}00000000…`);
    const newlines = "\n ".repeat(30_000); // frames' indentation without "at"
    expect(redactText(newlines)).toBe(newlines);
    expect(redactText(`${newlines}\n    at f (x.ts:1:2)`)).toBe(newlines);
  });

  it("logs a failed query as its cause, without SQL or parameter values", () => {
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => lines.push(line));
    const cause = Object.assign(new Error('relation "nope" does not exist'), { code: "42P01" });
    const failed = Object.assign(new Error(`Failed query: select * from api_tokens where token_hash = $1\nparams: ${digest}`), {
      query: "select * from api_tokens where token_hash = $1",
      params: [digest],
      cause,
    });
    createLogger({ request_id: "r1" }).error("unhandled error", { error: failed, stack: failed.stack, note: `params: ${digest}` });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]);
    expect(entry).toMatchObject({
      level: "error",
      request_id: "r1",
      error: { name: "Error", message: "query failed", cause: { message: 'relation "nope" does not exist', code: "42P01" } },
      note: "params: (not logged)",
    });
    expect(entry.stack).toBeUndefined();
    expect(lines[0]).not.toMatch(/[0-9a-f]{32}|select \*|\s{4}at /);
  });
});
