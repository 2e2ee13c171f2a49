import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { call, expectError, sql } from "../../test/support/api";

const root = path.resolve(import.meta.dirname, "../..");

/** Runs the real admin CLI against the test database; returns exit code, last stdout line as JSON, stderr. */
function admin(...args: string[]) {
  const res = spawnSync(path.join(root, "node_modules/.bin/tsx"), ["tools/cli/admin.ts", ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: inject("databaseUrl") },
  });
  const lines = res.stdout.trim().split("\n");
  let json: any;
  try {
    json = JSON.parse(lines[lines.length - 1]);
  } catch {
    json = undefined;
  }
  return { code: res.status, json, stderr: res.stderr };
}

describe("admin CLI", () => {
  it("creates a company and a token that works, lists tokens without secrets, revokes", () => {
    const company = admin("company", "create", "--name", "CLI Shop", "--accounting-sync");
    expect(company.code).toBe(0);
    expect(company.json).toEqual({ company_id: expect.any(Number) });

    const token = admin("token", "create", "--company", String(company.json.company_id));
    expect(token.json.token).toMatch(/^[0-9a-f]{64}$/);
    const list = admin("token", "list", "--company", String(company.json.company_id));
    expect(token.json.scope).toBe("write");
    expect(list.json.tokens).toEqual([
      { token_id: token.json.token_id, scope: "write", created_at: expect.any(String), last_used_at: null, revoked_at: null },
    ]);
    expect(JSON.stringify(list.json)).not.toContain(token.json.token);

    const revoked = admin("token", "revoke", "--token-id", String(token.json.token_id));
    expect(revoked.json).toEqual({ token_id: token.json.token_id, revoked_at: expect.any(String) });
  }, 60_000);

  it("imports a file and maps refs to ids; the token then reads the imported clients", async () => {
    const company = admin("company", "create", "--name", "Import Shop");
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
    const imported = admin("import", "--company", id, "--file", file);
    expect(imported.code).toBe(0);
    expect(imported.json.ids).toEqual({ c1: expect.any(Number), c2: expect.any(Number) });
    const { token } = admin("token", "create", "--company", id).json;
    const res = await call("GET", `/clients/${imported.json.ids.c2}`, { token });
    expect(res.body.client).toMatchObject({ company_name: "Imported B", email: "b@x.example" });
  }, 60_000);

  it("rejects bad input with a clear message and a non-zero exit, importing nothing on a bad record", async () => {
    const company = admin("company", "create", "--name", "Strict Shop");
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
    const res = admin("import", "--company", id, "--file", bad);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("clients[1].company_name");
    expect(res.stderr).toContain("clients[1].email");
    expect(await sql("select 1 from clients where company_id = $1", [Number(id)])).toEqual([]);

    const unknownSection = path.join(dir, "unknown.json");
    writeFileSync(unknownSection, JSON.stringify({ widgets: [] }));
    expect(admin("import", "--company", id, "--file", unknownSection).stderr).toContain("unknown section(s): widgets");
    expect(admin("token", "create", "--company", "abc").stderr).toContain("--company must be a positive integer");
    expect(admin("token", "create", "--company", "999999").stderr).toContain("company 999999 does not exist");
    expect(admin("company", "create").code).not.toBe(0);

    // A value the database refuses: a clear one-line error, no stack trace, no SQL.
    const nul = path.join(dir, "nul.json");
    writeFileSync(nul, JSON.stringify({ clients: [{ ref: "n", company_name: "Nul\u0000Co" }] }));
    const nulRes = admin("import", "--company", id, "--file", nul);
    expect(nulRes.code).toBe(1);
    expect(nulRes.stderr).toContain("clients[0].company_name");
    const dupStatus = admin("status", "create", "--company", id, "--name", "x".repeat(10), "--position", "99999999999");
    expect(dupStatus.code).not.toBe(0);
    for (const out of [nulRes.stderr, dupStatus.stderr]) {
      expect(out).not.toMatch(/\n\s+at /); // no stack frames
      expect(out).not.toMatch(/insert into|select .* from/i);
    }
    expect(admin("frobnicate").code).toBe(2);
  }, 60_000);

  // Last: its HTTP calls leave a pooled connection that a long spawnSync in a later test would find closed.
  it("creates a read-only token (--scope read) that reads but gets 403 on writes; lists scopes; refuses other scopes", async () => {
    const id = String(admin("company", "create", "--name", "CLI Scopes").json.company_id);
    const read = admin("token", "create", "--company", id, "--scope", "read");
    expect(read.code).toBe(0);
    expect(read.json).toEqual({ token: expect.stringMatching(/^[0-9a-f]{64}$/), token_id: expect.any(Number), scope: "read" });
    const write = admin("token", "create", "--company", id, "--scope", "write");
    expect(write.json.scope).toBe("write");
    expect(
      admin("token", "list", "--company", id).json.tokens.map((t: { token_id: number; scope: string }) => [t.token_id, t.scope]),
    ).toEqual([
      [read.json.token_id, "read"],
      [write.json.token_id, "write"],
    ]);
    expect((await call("GET", "/clients", { token: read.json.token })).status).toBe(200);
    expectError(await call("POST", "/clients", { token: read.json.token, body: { company_name: "No" } }), 403, "forbidden");
    expect((await call("POST", "/clients", { token: write.json.token, body: { company_name: "Yes" } })).status).toBe(200);

    const bad = admin("token", "create", "--company", id, "--scope", "admin");
    expect(bad.code).toBe(1);
    expect(bad.stderr.split("\n")[0]).toBe("error: --scope must be one of: read, write");
    expect(bad.stderr).not.toMatch(/\bat \S+:\d+/);
    expect(admin("token", "list", "--company", id).json.tokens).toHaveLength(2);
  }, 60_000);
});
