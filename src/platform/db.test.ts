import { describe, expect, it } from "vitest";
import { DatabaseUnavailable, isDatabaseUnavailable } from "./db";

describe("isDatabaseUnavailable", () => {
  it("finds the deadline's errors through drizzle's cause and the driver's sourceError", async () => {
    const wrapped = (e: unknown) =>
      Object.assign(new Error("Failed query"), { cause: Object.assign(new Error("driver"), { sourceError: e }) });
    expect(isDatabaseUnavailable(wrapped(new DatabaseUnavailable("no answer")))).toBe(true);
    // An answer's body still being read when the deadline signal fires.
    const signal = AbortSignal.timeout(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(isDatabaseUnavailable(wrapped(signal.reason))).toBe(true);
    // PostgreSQL's own errors and other failures are not the database being unavailable.
    expect(isDatabaseUnavailable(wrapped(Object.assign(new Error("duplicate key"), { code: "23505" })))).toBe(false);
    expect(isDatabaseUnavailable(wrapped(new DOMException("aborted", "AbortError")))).toBe(false);
  });
});
