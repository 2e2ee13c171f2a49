import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { type ApiResponse, call, errorEnvelope, keepAliveClient, largeBody, newCompany, waitFor, workerLogLines } from "./support/api";
import { startWorker } from "./support/worker";

/** A second Worker on the same bundle with its own bindings, and its own log file. */
async function withWorker(bindings: Record<string, string>, run: (baseUrl: string, logLines: () => string[]) => Promise<void>) {
  const logFile = path.join(mkdtempSync(path.join(tmpdir(), "crm-config-")), "worker.log");
  const worker = await startWorker({ script: inject("workerScript"), bindings, logFile });
  try {
    await run(`${worker.url}/api/v1`, () => workerLogLines(logFile));
  } finally {
    await worker.dispose();
  }
}

/** The misconfigured answer; it carries the request's id like every error, though it comes before the settings. */
const misconfigured = (res: ApiResponse) =>
  errorEnvelope(res, { code: "internal_error", message: expect.stringContaining("misconfigured"), details: null });

describe("Worker configuration", () => {
  it("without DATABASE_URL: a 500 envelope on every request and one log line saying so", async () => {
    const { DATABASE_URL: _unset, ...bindings } = inject("workerBindings");
    const a = await newCompany();
    await withWorker(bindings, async (baseUrl, logLines) => {
      for (const [method, route] of [
        ["GET", "/clients"],
        ["POST", "/clients"],
        ["GET", "/openapi.json"],
      ]) {
        const res = await call(method, route, { token: a.token, baseUrl, body: method === "POST" ? { company_name: "x" } : undefined });
        expect(res.status).toBe(500);
        expect(res.body).toEqual(misconfigured(res));
      }
      const lines = await waitFor(
        "the configuration error in the log",
        () => logLines().filter((l) => l.includes("DATABASE_URL is not set")),
        (l) => l.length > 0,
      );
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0])).toMatchObject({ level: "error" });
      // That 500 comes before any body is read: the body is still drained, and the connection stays usable.
      const client = keepAliveClient(baseUrl);
      try {
        const refused = await client.send("POST", "/clients", a.token, largeBody());
        expect(refused.status).toBe(500);
        const next = await client.send("GET", "/clients", a.token);
        expect(next.status).toBe(500);
        expect(next.socket).toBe(refused.socket);
      } finally {
        client.close();
      }
    });
  });

  it("a wrong setting: 500, and one log line naming the setting and its allowed range", async () => {
    const bindings = { ...inject("workerBindings"), PRODUCT_SOURCE_TIMEOUT_MS: "fast", ACCOUNTING_MAX_ATTEMPTS: "0" };
    const a = await newCompany();
    await withWorker(bindings, async (baseUrl, logLines) => {
      const res = await call("GET", "/products/search?q=tee", { token: a.token, baseUrl });
      expect(res.status).toBe(500);
      expect(res.body).toEqual(misconfigured(res));
      expect(JSON.stringify(res.body)).not.toContain("PRODUCT_SOURCE_TIMEOUT_MS");
      const lines = await waitFor(
        "the configuration error in the log",
        () => logLines().filter((l) => l.includes("Invalid configuration")),
        (l) => l.length > 0,
      );
      expect(lines).toHaveLength(1);
      const { msg } = JSON.parse(lines[0]);
      expect(msg).toContain('PRODUCT_SOURCE_TIMEOUT_MS must be a whole number of milliseconds from 100 to 30000 (got "fast")');
      expect(msg).toContain("ACCOUNTING_MAX_ATTEMPTS must be a whole number of attempts from 1 to 100");
    });
  });
});
