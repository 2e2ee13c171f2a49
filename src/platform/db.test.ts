import { describe, expect, it } from "vitest";
import { DatabaseUnavailable, databaseFailure, isDatabaseUnavailable } from "./db";

const wrapped = (e: unknown) => Object.assign(new Error("Failed query"), { cause: Object.assign(new Error("driver"), { sourceError: e }) });
const pgError = (code: string, fields: Record<string, unknown> = {}) => Object.assign(new Error("postgres says"), { code, ...fields });

describe("isDatabaseUnavailable", () => {
  it("finds the deadline's errors through drizzle's cause and the driver's sourceError", async () => {
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

describe("databaseFailure: the one mapping from database failures to answers", () => {
  it.each([
    ["57P01", "admin_shutdown"],
    ["57P02", "crash_shutdown"],
    ["57P03", "cannot_connect_now (starting up, in recovery)"],
    ["57014", "query_canceled"],
    ["08006", "connection_failure"],
    ["08001", "unable to connect"],
    ["53300", "too_many_connections"],
    ["40001", "serialization_failure"],
    ["40P01", "deadlock_detected"],
  ])("SQLSTATE %s (%s) is unavailable (503)", (code) => {
    expect(databaseFailure(wrapped(pgError(code)))).toEqual({ kind: "unavailable" });
  });

  it.each(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE"])("a socket's %s is unavailable (503)", (code) => {
    expect(databaseFailure(wrapped(Object.assign(new Error("socket"), { code })))).toEqual({ kind: "unavailable" });
  });

  it("constraint and data errors are the caller's input (400), naming the column, never the company", () => {
    expect(databaseFailure(wrapped(pgError("23502", { column: "title" })))).toMatchObject({ kind: "input", field: "title" });
    expect(
      databaseFailure(wrapped(pgError("23505", { detail: "Key (company_id, email)=(1, a@b.example) already exists." }))),
    ).toMatchObject({ kind: "input", field: "email", message: "Already exists" });
    expect(databaseFailure(wrapped(pgError("23503", { detail: 'Key (client_id)=(9) is not present in table "clients".' })))).toMatchObject({
      kind: "input",
      field: "client_id",
    });
    expect(databaseFailure(wrapped(pgError("22003")))).toMatchObject({ kind: "input", field: "(body)", message: "Out of range" });
  });

  it("anything else is unexpected (500)", () => {
    for (const e of [
      pgError("42P01"),
      pgError("28P01"),
      pgError("XX000"),
      new TypeError("x"),
      new Error("Connection terminated unexpectedly"),
    ]) {
      expect(databaseFailure(wrapped(e))).toBeUndefined();
    }
  });
});
