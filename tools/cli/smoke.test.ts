import { createServer } from "node:net";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { apiUrl, call, db, newCompany } from "../../test/support/api";
import { startWorker } from "../../test/support/worker";
import { revokeToken } from "../ops/commands";
import { commands } from "./admin";
import { smokeTest } from "./smoke";

const origin = () => apiUrl().replace(/\/api\/v1$/, "");
const byName = (results: { name: string; ok: boolean; detail: string }[]) => Object.fromEntries(results.map((r) => [r.name, r]));

describe("smoke test of a deployed Worker (npm run smoke)", () => {
  it("passes every check against a healthy Worker with a live token", async () => {
    const { token } = await newCompany();
    const results = await smokeTest(origin(), { token, waitMs: 0 });
    expect(results.map((r) => r.name)).toEqual([
      "docs page (no token)",
      "OpenAPI document (no token)",
      "API refuses a request without a token",
      "authenticated request (database and rate limiter)",
    ]);
    expect(results.filter((r) => !r.ok)).toEqual([]);
  });

  it("runs only the public checks without a token", async () => {
    const results = await smokeTest(`${origin()}/`, { waitMs: 0 });
    expect(results).toHaveLength(3);
    expect(results.every((r) => r.ok)).toBe(true);
  });

  it("fails the authenticated check, and only it, for a revoked token", async () => {
    const company = await newCompany();
    await revokeToken(db(), { tokenId: company.tokenId });
    const results = byName(await smokeTest(origin(), { token: company.token, waitMs: 0 }));
    expect(results["authenticated request (database and rate limiter)"]).toMatchObject({
      ok: false,
      detail: expect.stringContaining("HTTP 401"),
    });
    expect(results["docs page (no token)"].ok).toBe(true);
    expect(results["API refuses a request without a token"].ok).toBe(true);
  });

  it("fails the authenticated check when the Worker has no Upstash credentials (limiter failing open)", async () => {
    const { UPSTASH_REDIS_REST_URL: _url, UPSTASH_REDIS_REST_TOKEN: _token, ...bindings } = inject("workerBindings");
    const worker = await startWorker({
      script: inject("workerScript"),
      bindings,
      logFile: path.join(inject("tmpDir"), "smoke-no-upstash.log"),
    });
    try {
      const { token } = await newCompany();
      const results = byName(await smokeTest(worker.url, { token, waitMs: 0 }));
      expect(results["authenticated request (database and rate limiter)"]).toMatchObject({
        ok: false,
        detail: expect.stringContaining("failing open"),
      });
      expect(results["OpenAPI document (no token)"].ok).toBe(true);
    } finally {
      await worker.dispose();
    }
  });

  it("fails every check, naming the cause, when nothing answers", async () => {
    const server = createServer().listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const { port } = server.address() as { port: number };
    await new Promise((r) => server.close(r));
    const results = await smokeTest(`http://127.0.0.1:${port}`, { token: "0".repeat(64), waitMs: 0 });
    expect(results).toHaveLength(4);
    for (const r of results) expect(r).toMatchObject({ ok: false, detail: expect.stringMatching(/^no answer: .*ECONNREFUSED/) });
  });
});

describe("admin demo seed (preview databases)", () => {
  it("creates the demo company once and a new working token on every run", async () => {
    const first = (await commands["demo seed"].run(db(), {})) as { company_id: number; token: string; token_id: number };
    const second = (await commands["demo seed"].run(db(), {})) as { company_id: number; token: string; token_id: number };
    expect(second.company_id).toBe(first.company_id);
    expect(second.token).not.toBe(first.token);
    expect(second.token_id).not.toBe(first.token_id);

    const res = await call("GET", "/clients?per_page=100", { token: second.token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { company_name: string }) => c.company_name)).toContain("Northside Print Co.");
    expect(res.body.pagination).toBeTruthy();
  });
});
