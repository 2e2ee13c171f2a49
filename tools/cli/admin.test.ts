import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { call, expectError, newCompany, sql } from "../../test/support/api";
import { newEndpoint, recordDelivery } from "../../test/support/webhooks";

const root = path.resolve(import.meta.dirname, "../..");

/**
 * Each test's time limit: at most 10 CLI runs of 20 s. A run is a fresh Node process compiling the CLI
 * with tsx: about 3 s of CPU, and 10.5 s of wall time on the 2-core machine at a load of 7.5 (CI beside
 * four other test runs), so each run gets twice that.
 */
const TEST_TIMEOUT_MS = 10 * 20_000;

/** Runs the real admin CLI against the test database; returns exit code, last stdout line as JSON, stderr. */
// Asynchronous, so the event loop keeps serving the HTTP client's sockets while the CLI runs (a
// blocked loop let a kept-alive connection close unnoticed, and the next request failed on it).
async function admin(...args: string[]) {
  const res = await promisify(execFile)(path.join(root, "node_modules/.bin/tsx"), ["tools/cli/admin.ts", ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: inject("databaseUrl") },
  }).then(
    (r) => ({ status: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      status: typeof e.code === "number" ? e.code : 1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    }),
  );
  const lines = res.stdout.trim().split("\n");
  let json: any;
  try {
    json = JSON.parse(lines[lines.length - 1]);
  } catch {
    json = undefined;
  }
  return { code: res.status, json, stderr: res.stderr };
}

describe("admin CLI", { timeout: TEST_TIMEOUT_MS }, () => {
  it("creates a company and a token that works, lists tokens without secrets, revokes", async () => {
    const company = await admin("company", "create", "--name", "CLI Shop", "--accounting-sync");
    expect(company.code).toBe(0);
    expect(company.json).toEqual({ company_id: expect.any(Number) });

    const token = await admin("token", "create", "--company", String(company.json.company_id));
    expect(token.json.token).toMatch(/^[0-9a-f]{64}$/);
    const list = await admin("token", "list", "--company", String(company.json.company_id));
    expect(token.json.scope).toBe("write");
    expect(list.json.tokens).toEqual([
      {
        token_id: token.json.token_id,
        name: null,
        scope: "write",
        last_four: token.json.token.slice(-4),
        created_by: null,
        created_at: expect.any(String),
        last_used_at: null,
        expires_at: null,
        revoked_at: null,
        status: "active",
      },
    ]);
    expect(JSON.stringify(list.json)).not.toContain(token.json.token);

    // A name and an expiry, as the settings area gives them; the token appears in its list.
    const named = await admin(
      "token",
      "create",
      "--company",
      String(company.json.company_id),
      "--name",
      "Zapier",
      "--expires-in-days",
      "30",
    );
    expect(named.json).toMatchObject({ name: "Zapier", scope: "write", expires_at: expect.any(String) });
    const days = (Date.parse(named.json.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    const refused = await admin("token", "create", "--company", String(company.json.company_id), "--expires-in-days", "12");
    expect(refused.code).toBe(1);
    expect(refused.stderr.split("\n")[0]).toBe("error: --expires-in-days must be one of 7, 30, 90, 365");

    const revoked = await admin("token", "revoke", "--token-id", String(token.json.token_id));
    expect(revoked.json).toEqual({ token_id: token.json.token_id, revoked_at: expect.any(String), propagated: expect.any(Boolean) });
    const after = await admin("token", "list", "--company", String(company.json.company_id));
    expect(after.json.tokens.map((t: { name: string | null; status: string }) => [t.name, t.status])).toEqual([
      [null, "revoked"],
      ["Zapier", "active"],
    ]);
  });

  it("imports a file and maps refs to ids; the token then reads the imported clients", async () => {
    const company = await admin("company", "create", "--name", "Import Shop");
    const id = String(company.json.company_id);
    const file = path.join(mkdtempSync(path.join(tmpdir(), "crm-import-")), "data.json");
    writeFileSync(
      file,
      JSON.stringify({
        clients: [
          { ref: "c1", company_name: "Imported A" },
          { ref: "c2", company_name: "Imported B", email: "b@x.example" },
        ],
      }),
    );
    const imported = await admin("import", "--company", id, "--file", file);
    expect(imported.code).toBe(0);
    expect(imported.json.ids).toEqual({ c1: expect.any(Number), c2: expect.any(Number) });
    const { token } = (await admin("token", "create", "--company", id)).json;
    const res = await call("GET", `/clients/${imported.json.ids.c2}`, { token });
    expect(res.body.client).toMatchObject({ company_name: "Imported B", email: "b@x.example" });
  });

  it("rejects bad input with a clear message and a non-zero exit, importing nothing on a bad record", async () => {
    const company = await admin("company", "create", "--name", "Strict Shop");
    const id = String(company.json.company_id);
    const dir = mkdtempSync(path.join(tmpdir(), "crm-import-"));
    const bad = path.join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({
        clients: [
          { ref: "ok", company_name: "Fine" },
          { ref: "bad", company_name: "", email: "x" },
        ],
      }),
    );
    const res = await admin("import", "--company", id, "--file", bad);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("clients[1].company_name");
    expect(res.stderr).toContain("clients[1].email");
    expect(await sql("select 1 from clients where company_id = $1", [Number(id)])).toEqual([]);

    const unknownSection = path.join(dir, "unknown.json");
    writeFileSync(unknownSection, JSON.stringify({ widgets: [] }));
    expect((await admin("import", "--company", id, "--file", unknownSection)).stderr).toContain("unknown section(s): widgets");
    expect((await admin("token", "create", "--company", "abc")).stderr).toContain("--company must be a positive integer");
    expect((await admin("token", "create", "--company", "999999")).stderr).toContain("company 999999 does not exist");
    expect((await admin("company", "create")).code).not.toBe(0);

    // A value the database refuses: a clear one-line error, no stack trace, no SQL.
    const nul = path.join(dir, "nul.json");
    writeFileSync(nul, JSON.stringify({ clients: [{ ref: "n", company_name: "Nul\u0000Co" }] }));
    const nulRes = await admin("import", "--company", id, "--file", nul);
    expect(nulRes.code).toBe(1);
    expect(nulRes.stderr).toContain("clients[0].company_name");
    const dupStatus = await admin("status", "create", "--company", id, "--name", "x".repeat(10), "--position", "99999999999");
    expect(dupStatus.code).not.toBe(0);
    for (const out of [nulRes.stderr, dupStatus.stderr]) {
      expect(out).not.toMatch(/\n\s+at /); // no stack frames
      expect(out).not.toMatch(/insert into|select .* from/i);
    }
    expect((await admin("frobnicate")).code).toBe(2);
  });

  it("creates a read-only token (--scope read) that reads but gets 403 on writes; lists scopes; refuses other scopes", async () => {
    const id = String((await admin("company", "create", "--name", "CLI Scopes")).json.company_id);
    const read = await admin("token", "create", "--company", id, "--scope", "read");
    expect(read.code).toBe(0);
    expect(read.json).toEqual({
      token: expect.stringMatching(/^[0-9a-f]{64}$/),
      token_id: expect.any(Number),
      scope: "read",
      name: null,
      expires_at: null,
    });
    const write = await admin("token", "create", "--company", id, "--scope", "write");
    expect(write.json.scope).toBe("write");
    expect(
      (await admin("token", "list", "--company", id)).json.tokens.map((t: { token_id: number; scope: string }) => [t.token_id, t.scope]),
    ).toEqual([
      [read.json.token_id, "read"],
      [write.json.token_id, "write"],
    ]);
    expect((await call("GET", "/clients", { token: read.json.token })).status).toBe(200);
    expectError(await call("POST", "/clients", { token: read.json.token, body: { company_name: "No" } }), 403, "forbidden");
    expect((await call("POST", "/clients", { token: write.json.token, body: { company_name: "Yes" } })).status).toBe(200);

    const bad = await admin("token", "create", "--company", id, "--scope", "admin");
    expect(bad.code).toBe(1);
    expect(bad.stderr.split("\n")[0]).toBe("error: --scope must be one of: read, write");
    expect(bad.stderr).not.toMatch(/\bat \S+:\d+/);
    expect((await admin("token", "list", "--company", id)).json.tokens).toHaveLength(2);
  });

  it("lists webhook endpoints with their state (never secrets) and failed deliveries, per company or for all", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { webhook_endpoint: ep, secret } = await newEndpoint(a, { events: ["order.created"], description: "ERP" });
    const { webhook_endpoint: other } = await newEndpoint(b);
    await a.patch(`/webhook-endpoints/${ep.id}`, { enabled: false });
    const older = await recordDelivery(a, ep.id, { status: "failed", responseStatus: 502, error: "HTTP 502" });
    const newer = await recordDelivery(a, ep.id, { status: "failed", responseStatus: 500 });
    await recordDelivery(a, ep.id, { status: "succeeded" });
    await recordDelivery(a, ep.id, { status: "pending" });
    const bFailed = await recordDelivery(b, other.id, { status: "failed" });

    const list = await admin("webhooks", "list", "--company", String(a.companyId));
    expect(list.code).toBe(0);
    expect(list.json.endpoints).toEqual([
      {
        id: ep.id,
        company_id: a.companyId,
        url: ep.url,
        description: "ERP",
        events: ["order.created"],
        enabled: false,
        disabled_reason: expect.stringContaining("API"),
        disabled_at: expect.any(String),
        failure_streak: 0,
        failing_since: null,
        deliveries_pending: 1,
        deliveries_failed: 2,
      },
    ]);
    const all = await admin("webhooks", "list");
    expect(all.json.endpoints.map((e: { id: number }) => e.id)).toEqual(expect.arrayContaining([ep.id, other.id]));
    expect(JSON.stringify(all.json)).not.toContain(secret);
    expect(JSON.stringify(all.json)).not.toContain("whsec_");

    const failed = await admin("webhooks", "failed", "--company", String(a.companyId));
    expect(failed.code).toBe(0);
    expect(failed.json.deliveries.map((d: { id: number }) => d.id)).toEqual([newer.deliveryId, older.deliveryId]);
    expect(failed.json.deliveries[1]).toMatchObject({
      company_id: a.companyId,
      endpoint_id: ep.id,
      event_id: older.eventId,
      event_type: "client.updated",
      last_response_status: 502,
      last_error: "HTTP 502",
      attempts: 3,
    });
    expect((await admin("webhooks", "failed", "--company", String(a.companyId), "--limit", "1")).json.deliveries).toHaveLength(1);
    const everyone = (await admin("webhooks", "failed", "--limit", "1000")).json.deliveries.map((d: { id: number }) => d.id);
    expect(everyone).toEqual(expect.arrayContaining([newer.deliveryId, bFailed.deliveryId]));

    for (const args of [
      ["webhooks", "failed", "--limit", "0"],
      ["webhooks", "failed", "--limit", "ten"],
      ["webhooks", "list", "--company", "2147483000"],
    ]) {
      const bad = await admin(...args);
      expect(bad.code, args.join(" ")).toBe(1);
      expect(bad.stderr, args.join(" ")).toMatch(/^error: /);
    }
  });
});
