import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, db, expectError, newCompany, sql } from "../../test/support/api";
import { type RunningWorker, startWorker } from "../../test/support/worker";
import { createToken as cliCreateToken, listTokens as cliListTokens, revokeToken as cliRevokeToken } from "../../tools/ops/commands";
import { sha256Hex } from "./auth";
import { type Actor, createToken, listTokens, revokeToken, rollToken } from "./tokens";

/*
 * The token lifecycle over HTTP: tokens made, rolled and revoked through the token service (as the
 * settings pages and the CLI do), used against the Worker in workerd. Two Workers cache tokens as
 * production does (the default 30 s TTL, the revoked set in the suite's Redis): two isolates.
 */

const redis = () => inject("workerBindings");
let isolates: RunningWorker[] = [];
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), "crm-token-lifecycle-"));
  const { TOKEN_CACHE_TTL_MS: _, ...bindings } = inject("workerBindings");
  isolates = await Promise.all(
    ["a", "b"].map((name) => startWorker({ script: inject("workerScript"), bindings, logFile: path.join(tmp, `${name}.log`) })),
  );
});

afterAll(async () => {
  await Promise.all(isolates.map((w) => w.dispose()));
  rmSync(tmp, { recursive: true, force: true });
});

const on = (worker: RunningWorker | undefined, token: string, method = "GET", pathname = "/clients", body?: unknown) =>
  call(method, pathname, { token, body, baseUrl: worker ? `${worker.url}/api/v1` : undefined });

async function newUser(companyId: number): Promise<Actor & { email: string }> {
  const email = `dev-${companyId}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  const [row] = await sql<{ id: number }>("insert into company_users (company_id, email, role) values ($1, $2, 'developer') returning id", [
    companyId,
    email,
  ]);
  return { type: "user", userId: row.id, clientIp: "203.0.113.9", requestId: "req-test", email };
}

/** The company's audit entries, but for its first token's creation (newCompany's). */
const audits = (co: { companyId: number; tokenId: number }) =>
  sql<{ actor_type: string; actor_id: string | null; action: string; target_id: string; details: Record<string, unknown> }>(
    "select actor_type, actor_id, action, target_id, details from audit_entries where company_id = $1 and target_id <> $2 order by id",
    [co.companyId, String(co.tokenId)],
  );

describe("creating and listing tokens", () => {
  it("returns the 64-hex token once, stores only its digest, lists its last four and maker; CLI tokens are listed too", async () => {
    const co = await newCompany();
    const user = await newUser(co.companyId);
    const made = await createToken(db(), { companyId: co.companyId, name: "Zapier", scope: "read", expiresInDays: 30, actor: user });
    expect(made.token).toMatch(/^[0-9a-f]{64}$/);
    const [stored] = await sql<Record<string, unknown>>("select * from api_tokens where id = $1", [made.row.id]);
    expect(stored.token_hash).toBe(await sha256Hex(made.token));
    expect(JSON.stringify(stored)).not.toContain(made.token);
    expect(stored.last_four).toBe(made.token.slice(-4));
    const days = ((stored.expires_at as Date).getTime() - (stored.created_at as Date).getTime()) / 86_400_000;
    expect(days).toBeCloseTo(30, 5);

    const cli = await cliCreateToken(db(), { companyId: co.companyId, name: "From the CLI", expiresInDays: 7 });
    const list = await listTokens(db(), { companyId: co.companyId });
    expect(list.map((t) => t.id)).toEqual([cli.token_id, made.row.id, co.tokenId]);
    expect(list[1]).toMatchObject({ name: "Zapier", scope: "read", lastFour: made.token.slice(-4), createdByEmail: user.email });
    expect(list[0]).toMatchObject({ name: "From the CLI", scope: "write", lastFour: cli.token.slice(-4), createdByEmail: null });
    expect(JSON.stringify(list)).not.toContain(made.token);
    expect(JSON.stringify(await cliListTokens(db(), { companyId: co.companyId }))).not.toContain(cli.token);

    // Works at once, within its scope.
    expect((await on(undefined, made.token)).status).toBe(200);
    expectError(await on(undefined, made.token, "POST", "/clients", { company_name: "Nope" }), 403, "forbidden");
    expect((await on(undefined, cli.token, "POST", "/clients", { company_name: "Yes" })).status).toBe(200);

    expect(await audits(co)).toEqual([
      {
        actor_type: "user",
        actor_id: String(user.type === "user" && user.userId),
        action: "token.created",
        target_id: String(made.row.id),
        details: { name: "Zapier", scope: "read", expires_in_days: 30 },
      },
      {
        actor_type: "system",
        actor_id: null,
        action: "token.created",
        target_id: String(cli.token_id),
        details: { name: "From the CLI", scope: "write", expires_in_days: 7 },
      },
    ]);
  });

  it("the CLI refuses an expiry that is not 7, 30, 90 or 365 days", async () => {
    const co = await newCompany();
    await expect(cliCreateToken(db(), { companyId: co.companyId, expiresInDays: 12 })).rejects.toThrow(/expires-in-days/);
  });
});

describe("expiry", () => {
  it("an expired token answers 401 like a revoked one", async () => {
    const co = await newCompany();
    const made = await createToken(db(), {
      companyId: co.companyId,
      name: "Old",
      scope: "write",
      expiresInDays: 7,
      actor: { type: "system" },
    });
    expect((await on(undefined, made.token)).status).toBe(200);
    await sql("update api_tokens set expires_at = now() - interval '1 second' where id = $1", [made.row.id]);
    const expired = await on(undefined, made.token);
    const revoked = await on(undefined, "a".repeat(64));
    expectError(expired, 401, "unauthenticated");
    expect(expired.body.error.message).toBe(revoked.body.error.message);
  });

  it("a cached token stops at its expires_at on every isolate, with no lookup", async () => {
    const co = await newCompany();
    const made = await createToken(db(), {
      companyId: co.companyId,
      name: "Brief",
      scope: "read",
      expiresInDays: 7,
      actor: { type: "system" },
    });
    await sql("update api_tokens set expires_at = now() + interval '3 seconds' where id = $1", [made.row.id]);
    for (const w of isolates) expect((await on(w, made.token)).status).toBe(200);
    const [{ ms }] = await sql<{ ms: number }>("select extract(epoch from expires_at - now()) * 1000 as ms from api_tokens where id = $1", [
      made.row.id,
    ]);
    await new Promise((r) => setTimeout(r, Number(ms) + 50));
    for (const w of isolates) expectError(await on(w, made.token), 401, "unauthenticated");
  });
});

describe("revocation on every isolate", () => {
  it("a revoked token answers 401 on the next request on both isolates; the company's other token keeps working", async () => {
    const co = await newCompany();
    const user = await newUser(co.companyId);
    const made = await createToken(db(), { companyId: co.companyId, name: "Leaked", scope: "write", expiresInDays: null, actor: user });
    // Both isolates have the token cached (a second request on each is answered from the cache).
    for (const w of isolates) for (let i = 0; i < 2; i++) expect((await on(w, made.token)).status).toBe(200);

    const revoked = await revokeToken(db(), redis(), { tokenId: made.row.id, companyId: co.companyId, actor: user });
    const answeredAt = performance.now();
    expect(revoked?.propagated).toBe(true);
    const times: number[] = [];
    for (const w of isolates) {
      const res = await on(w, made.token);
      times.push(performance.now() - answeredAt);
      expectError(res, 401, "unauthenticated");
      // A write is refused too, and changes nothing.
      expectError(await on(w, made.token, "POST", "/clients", { company_name: "After revoke" }), 401, "unauthenticated");
      expect((await on(w, co.token)).status).toBe(200);
    }
    expect((await on(undefined, made.token)).status).toBe(401);
    expect(await sql("select 1 from clients where company_id = $1 and company_name = 'After revoke'", [co.companyId])).toEqual([]);
    console.log(`revoke answered → first 401: isolate A ${times[0].toFixed(1)} ms, isolate B ${times[1].toFixed(1)} ms`);
    expect((await audits(co)).map((a) => a.action)).toEqual(["token.created", "token.revoked"]);
  });

  it("the CLI's revoke reaches every isolate as well", async () => {
    const co = await newCompany();
    const { token, token_id } = await cliCreateToken(db(), { companyId: co.companyId });
    for (const w of isolates) expect((await on(w, token)).status).toBe(200);
    expect(await cliRevokeToken(db(), { tokenId: token_id, redis: redis() })).toMatchObject({ token_id, propagated: true });
    for (const w of isolates) expectError(await on(w, token), 401, "unauthenticated");
  });

  it("with Redis unreachable, a cached token is checked in the database: a revocation still answers 401 at once", async () => {
    // A port nobody listens on: the isolate's revocation check fails, and fails closed.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const { TOKEN_CACHE_TTL_MS: _, ...bindings } = inject("workerBindings");
    const worker = await startWorker({
      script: inject("workerScript"),
      bindings: { ...bindings, UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${port}` },
      logFile: path.join(tmp, "no-redis.log"),
    });
    try {
      const co = await newCompany();
      const made = await createToken(db(), {
        companyId: co.companyId,
        name: "X",
        scope: "read",
        expiresInDays: null,
        actor: { type: "system" },
      });
      for (let i = 0; i < 3; i++) expect((await on(worker, made.token)).status).toBe(200);
      // The revocation cannot be recorded either.
      const revoked = await revokeToken(
        db(),
        { ...bindings, UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${port}` },
        {
          tokenId: made.row.id,
          actor: { type: "system" },
        },
      );
      expect(revoked?.propagated).toBe(false);
      expectError(await on(worker, made.token), 401, "unauthenticated");
    } finally {
      await worker.dispose();
    }
  });
});

describe("roll", () => {
  it("the new token has the old one's name and scope; the old one works during the overlap and answers 401 after it", async () => {
    const co = await newCompany();
    const user = await newUser(co.companyId);
    const made = await createToken(db(), { companyId: co.companyId, name: "Shopify", scope: "read", expiresInDays: 90, actor: user });
    const rolled = await rollToken(db(), redis(), { tokenId: made.row.id, companyId: co.companyId, overlap: "1h", actor: user });
    expect(rolled).toBeDefined();
    expect(rolled!.token).toMatch(/^[0-9a-f]{64}$/);
    expect(rolled!.row).toMatchObject({ name: "Shopify", scope: "read", lastFour: rolled!.token.slice(-4), createdByEmail: user.email });
    // The new token keeps the old one's lifetime; the old one ends an hour from now.
    expect((rolled!.row.expiresAt!.getTime() - rolled!.row.createdAt.getTime()) / 86_400_000).toBeCloseTo(90, 5);
    expect(rolled!.old.expiresAt!.getTime() - Date.now()).toBeGreaterThan(3_590_000);
    expect(rolled!.old.expiresAt!.getTime() - Date.now()).toBeLessThan(3_610_000);
    for (const w of [undefined, ...isolates]) {
      expect((await on(w, made.token)).status).toBe(200);
      expect((await on(w, rolled!.token)).status).toBe(200);
      expectError(await on(w, rolled!.token, "POST", "/clients", { company_name: "read only" }), 403, "forbidden");
    }
    // The overlap's end, brought forward (an hour is long for a test): the old token is refused, the new one works.
    await sql("update api_tokens set expires_at = now() - interval '1 second' where id = $1", [made.row.id]);
    expectError(await on(undefined, made.token), 401, "unauthenticated");
    expect((await on(undefined, rolled!.token)).status).toBe(200);
    // A token past its overlap cannot be rolled again.
    expect(await rollToken(db(), redis(), { tokenId: made.row.id, companyId: co.companyId, overlap: "1h", actor: user })).toBeUndefined();
    const trail = await audits(co);
    expect(trail.map((a) => a.action)).toEqual(["token.created", "token.rolled"]);
    expect(trail[1].details).toEqual({ overlap: "1h", new_token_id: rolled!.row.id });
  });

  it("with no overlap the old token answers 401 at once on every isolate", async () => {
    const co = await newCompany();
    const made = await createToken(db(), {
      companyId: co.companyId,
      name: "Now",
      scope: "write",
      expiresInDays: null,
      actor: { type: "system" },
    });
    for (const w of isolates) expect((await on(w, made.token)).status).toBe(200);
    const rolled = await rollToken(db(), redis(), {
      tokenId: made.row.id,
      companyId: co.companyId,
      overlap: "none",
      actor: { type: "system" },
    });
    expect(rolled?.propagated).toBe(true);
    expect(rolled?.old.revokedAt).not.toBeNull();
    for (const w of isolates) {
      expectError(await on(w, made.token), 401, "unauthenticated");
      expect((await on(w, rolled!.token)).status).toBe(200);
    }
  });
});

describe("tenancy", () => {
  it("another company's token ids answer like missing ones: no revoke, no roll, not listed", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const made = await createToken(db(), {
      companyId: a.companyId,
      name: "A's",
      scope: "write",
      expiresInDays: null,
      actor: { type: "system" },
    });
    const actor = await newUser(b.companyId);
    expect(await revokeToken(db(), redis(), { tokenId: made.row.id, companyId: b.companyId, actor })).toBeUndefined();
    expect(await revokeToken(db(), redis(), { tokenId: 2_147_483_000, companyId: b.companyId, actor })).toBeUndefined();
    expect(await rollToken(db(), redis(), { tokenId: made.row.id, companyId: b.companyId, overlap: "none", actor })).toBeUndefined();
    expect((await listTokens(db(), { companyId: b.companyId })).map((t) => t.id)).toEqual([b.tokenId]);
    for (const w of [undefined, ...isolates]) expect((await on(w, made.token)).status).toBe(200);
    expect(await audits(b)).toEqual([]);
  });
});
