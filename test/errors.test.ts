import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { call, expectError, newCompany, sql } from "./support/api";
import { startWorker } from "./support/worker";

describe("error envelope", () => {
  it("404 not_found for unknown routes, inside and outside /api/v1", async () => {
    const a = await newCompany();
    const inside = expectError(await a.get("/no-such-thing"), 404, "not_found");
    expect(inside.message).toContain("/api/v1/no-such-thing");
    const res = await fetch(inject("apiUrl").replace("/api/v1", "/elsewhere"));
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe("not_found");
  });

  it("405 with Allow for a known path with the wrong method", async () => {
    const a = await newCompany();
    const res = await a.del("/clients");
    const err = expectError(res, 405, "invalid_request");
    expect(res.headers.get("allow")).toBe("GET, POST");
    expect(err.details.allow).toEqual(["GET", "POST"]);
    expect((await a.put("/clients/5", { company_name: "x" })).headers.get("allow")).toBe("GET, PATCH");
  });

  it("400 for malformed JSON", async () => {
    const a = await newCompany();
    const res = await call("POST", "/clients", { token: a.token, rawBody: '{"company_name": "x",', headers: { "content-type": "application/json" } });
    expect(expectError(res, 400, "invalid_request").message).toMatch(/not valid JSON/);
  });

  it("415 for a JSON body without the JSON content type", async () => {
    const a = await newCompany();
    expectError(await call("POST", "/clients", { token: a.token, rawBody: '{"company_name":"x"}' }), 415, "invalid_request");
    expectError(
      await call("POST", "/clients", { token: a.token, rawBody: '{"company_name":"x"}', headers: { "content-type": "text/plain" } }),
      415,
      "invalid_request",
    );
    expect(await sql("select 1 from clients where company_id = $1", [a.companyId])).toEqual([]);
  });

  it("accepts application/json with a charset", async () => {
    const a = await newCompany();
    const res = await call("POST", "/clients", {
      token: a.token,
      rawBody: '{"company_name":"Charset"}',
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(res.status).toBe(200);
  });

  it("400 for a missing body", async () => {
    const a = await newCompany();
    expectError(await call("POST", "/clients", { token: a.token }), 400, "invalid_request");
    expectError(await call("PATCH", "/clients/1", { token: a.token, headers: { "content-type": "application/json" } }), 400, "invalid_request");
  });

  it("413 for a body over 1 MiB, writing nothing", async () => {
    const a = await newCompany();
    const big = JSON.stringify({ company_name: "x".repeat(1024 * 1024 + 10) });
    const err = expectError(
      await call("POST", "/clients", { token: a.token, rawBody: big, headers: { "content-type": "application/json" } }),
      413,
      "invalid_request",
    );
    expect(err.details.max_bytes).toBe(1024 * 1024);
    expect(await sql("select 1 from clients where company_id = $1", [a.companyId])).toEqual([]);
  });

  it("500 internal_error without internals when the database is unreachable", async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), "crm-broken-"));
    const bindings = { ...inject("workerBindings"), DATABASE_URL: "postgres://postgres:postgres@127.0.0.1:1/crm" };
    const worker = await startWorker({ script: inject("workerScript"), bindings, logFile: path.join(tmp, "worker.log") });
    try {
      const a = await newCompany();
      const res = await call("GET", "/clients", { token: a.token, baseUrl: `${worker.url}/api/v1` });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: "internal_error", message: "An unexpected error occurred", details: null } });
      expect(res.headers.get("x-request-id")).toBeTruthy();
    } finally {
      await worker.dispose();
    }
  });
});
