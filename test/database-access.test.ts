import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import * as schema from "../src/db/schema";
import { ConfigError, DEFAULT_DB_DEADLINE_MS, MAX_TOKEN_CACHE_TTL_MS, workerConfig } from "../src/platform/config";
import { startStack } from "../tools/local/stack";
import { createCompany, createToken, revokeToken } from "../tools/ops/commands";
import { runMigrations } from "../tools/ops/migrate";
import { asRequest, call, db, expectError, newCompany, sql, waitFor } from "./support/api";
import { buildWorker, type RunningWorker, startWorker } from "./support/worker";

/** The suite's Worker checks tokens on every request; this one caches them as production does, with a short TTL. */
const TTL_MS = 2000;
let cached: RunningWorker;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), "crm-token-cache-"));
  cached = await startWorker({
    script: inject("workerScript"),
    bindings: { ...inject("workerBindings"), TOKEN_CACHE_TTL_MS: String(TTL_MS) },
    logFile: path.join(tmp, "worker.log"),
  });
});

afterAll(async () => {
  await cached?.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

const viaCache = { baseUrl: () => `${cached.url}/api/v1` };

/** A Worker built from a test fixture (test/fixtures/<fixture>/worker.ts) on the suite's stack, with these settings. */
async function fixtureWorker(fixture: string, settings: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), `crm-${fixture}-`));
  const script = buildWorker(path.join(dir, "worker"), undefined, path.join(import.meta.dirname, `fixtures/${fixture}/worker.ts`));
  const worker = await startWorker({
    script,
    bindings: { ...inject("workerBindings"), ...settings },
    logFile: path.join(dir, "worker.log"),
    assets: false,
  });
  return {
    url: worker.url,
    stop: async () => {
      await worker.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe("token cache (per isolate)", () => {
  it("trusts a checked token for at most 30 s by default; a setting may shorten that, never lengthen it", () => {
    const ttl = (TOKEN_CACHE_TTL_MS?: string) => workerConfig({ DATABASE_URL: "postgres://x@h/db", TOKEN_CACHE_TTL_MS }).TOKEN_CACHE_TTL_MS;
    expect(ttl()).toBe(MAX_TOKEN_CACHE_TTL_MS);
    expect(MAX_TOKEN_CACHE_TTL_MS).toBeLessThanOrEqual(30_000);
    expect(ttl("1500")).toBe(1500);
    expect(ttl("0")).toBe(0);
    expect(() => ttl("600000")).toThrow(ConfigError);
    expect(() => ttl("soon")).toThrow(ConfigError);
  });

  it("a revocation whose marker did not reach Redis (the CLI without Upstash settings) still lands within the TTL", async () => {
    const a = await newCompany();
    const other = await createToken(db(), { companyId: a.companyId });
    const get = (token: string) => call("GET", "/clients", { token, baseUrl: viaCache.baseUrl() });
    expect((await get(a.token)).status).toBe(200);
    expect((await get(other.token)).status).toBe(200);

    // No Redis given: no revocation marker (src/http/tokens.test.ts covers the marker reaching every isolate at once).
    expect(await revokeToken(db(), { tokenId: a.tokenId, redis: {} })).toMatchObject({ propagated: false });
    const revokedAt = Date.now();
    // Still cached right after the revocation: the check costs this request no database round trip.
    expect((await get(a.token)).status).toBe(200);
    const refused = await waitFor(
      "the revoked token to be refused",
      () => get(a.token),
      (res) => res.status === 401,
    );
    expectError(refused, 401, "unauthenticated");
    // Bounded by the TTL (plus the time one request may take on a loaded machine).
    expect(Date.now() - revokedAt).toBeLessThan(TTL_MS + 3000);
    expect((await get(other.token)).status).toBe(200);
  });

  it("keeps tenancy exact: each cached token sees its own company only, another company's row answers like none", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const opts = (token: string) => ({ token, baseUrl: viaCache.baseUrl() });
    const created = await call("POST", "/clients", { ...opts(a.token), body: { company_name: "Cached A" } });
    expect(created.status).toBe(200);
    const id = created.body.client.id;
    for (let round = 0; round < 3; round++) {
      expect((await call("GET", `/clients/${id}`, opts(a.token))).body.client.company_name).toBe("Cached A");
      const fromB = await call("GET", `/clients/${id}`, asRequest("foreign-or-missing", opts(b.token)));
      const missing = await call("GET", "/clients/2147483000", asRequest("foreign-or-missing", opts(b.token)));
      expect(fromB.status).toBe(404);
      expect(fromB.body).toEqual(missing.body);
      expect((await call("GET", "/clients", opts(b.token))).body.data).toEqual([]);
    }
    // An unknown token is never cached as anything.
    expectError(await call("GET", "/clients", opts("0".repeat(64))), 401, "unauthenticated");
  });

  it("a token's lookup left in flight by a request that ended does not hold up the next request with it", {
    timeout: 60_000,
  }, async () => {
    // The API behind a Worker that can start a request and end before it.
    const worker = await fixtureWorker("abandoned-request", { TOKEN_CACHE_TTL_MS: String(TTL_MS) });
    const { company_id } = await createCompany(db(), { name: "Abandoned Lookup Co" });
    const { token } = await createToken(db(), { companyId: company_id });
    const headers = { authorization: `Bearer ${token}` };
    const lock = new pg.Client({ connectionString: inject("databaseUrl") });
    await lock.connect();
    try {
      // The token's first lookup waits on the lock, and the request that started it ends meanwhile.
      await lock.query("begin");
      await lock.query("lock table api_tokens in access exclusive mode");
      expect(await (await fetch(`${worker.url}/abandon?path=/api/v1/clients`, { headers })).text()).toBe("abandoned");
      await new Promise((r) => setTimeout(r, 300));
      const next = fetch(`${worker.url}/api/v1/clients`, { headers, signal: AbortSignal.timeout(10_000) }).then(
        (res) => res.status,
        (e: Error) => e.name,
      );
      await new Promise((r) => setTimeout(r, 200));
      await lock.query("commit");
      // Its own lookup answers once the lock is gone; waiting on the ended request's would never end.
      expect(await next).toBe(200);
    } finally {
      await lock.end();
      await worker.stop();
    }
  });
});

describe("no database connection waits for a caller", () => {
  it("with hundreds of stalled request bodies from one token, another company's requests still answer 200", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const created = await call("POST", "/clients", { token: b.token, body: { company_name: "Unaffected" }, baseUrl: viaCache.baseUrl() });
    const abort = new AbortController();
    const statuses: number[] = [];
    const stalled = Array.from({ length: 500 }, () =>
      fetch(`${viaCache.baseUrl()}/clients`, {
        method: "POST",
        headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
        // The body starts and never ends.
        body: new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"company_name":')) }),
        duplex: "half",
        signal: abort.signal,
      } as RequestInit).then(
        (res) => statuses.push(res.status),
        () => {},
      ),
    );
    try {
      // Every stalled request holds a connection to the Worker (its headers and the body's start sent). A 429 also
      // means the limiter has let 300 of them through; on a loaded machine it may fail open instead, so either will do.
      const port = new URL(cached.url).port;
      const connected = () =>
        execFileSync("ss", ["-Htn", "state", "established", `( dport = :${port} )`], { encoding: "utf8" })
          .split("\n")
          .filter(Boolean).length;
      await waitFor("one token's requests to reach the Worker and stall", () => statuses.includes(429) || connected() >= 450);
      for (let i = 0; i < 10; i++) {
        const res = await call("GET", `/clients/${created.body.client.id}`, { token: b.token, baseUrl: viaCache.baseUrl() });
        expect(res.status).toBe(200);
      }
      // The stalled requests hold no connection: PostgreSQL sees only the local endpoint's small pool and the tests'.
      const [{ n }] = await sql<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database()");
      expect(n).toBeLessThan(100);
    } finally {
      abort.abort();
      await Promise.all(stalled);
    }
  });
});

/** Stops (or resumes) PostgreSQL: the postmaster, so nothing new connects, and every backend, so nothing answers. */
function signalPostgres(dataDir: string, signal: "SIGSTOP" | "SIGCONT") {
  const postmaster = Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(postmaster)], { encoding: "utf8" })
    .split("\n")
    .map((s) => Number(s.trim()))
    .filter((pid) => pid > 0);
  for (const pid of [postmaster, ...children]) process.kill(pid, signal);
}

describe("database deadlines", () => {
  it("with PostgreSQL stopped, answers 503 service_unavailable with Retry-After within 5 s, and recovers by itself", {
    timeout: 120_000,
  }, async () => {
    expect(DEFAULT_DB_DEADLINE_MS).toBeLessThan(5000);
    const dir = mkdtempSync(path.join(tmpdir(), "crm-outage-"));
    chmodSync(dir, 0o755);
    const dataDir = path.join(dir, "postgres");
    const stack = await startStack({ dataDir, redis: "none" });
    const pool = new pg.Pool({ connectionString: stack.postgres!.url, max: 2 });
    // Its idle connection is ended by the server when the stack stops: not an uncaught error in the worker.
    pool.on("error", () => {});
    let worker: RunningWorker | undefined;
    let stopped = false;
    try {
      await runMigrations(stack.postgres!.url);
      const direct = drizzle(pool, { schema });
      const { company_id } = await createCompany(direct, { name: "Outage Co" });
      const { token } = await createToken(direct, { companyId: company_id });
      // Default deadline and token cache, in-memory limiter: only the database is in question.
      worker = await startWorker({
        script: inject("workerScript"),
        bindings: { ...stack.vars, RATE_LIMIT_BACKEND: "memory" },
        logFile: path.join(dir, "worker.log"),
      });
      const baseUrl = `${worker.url}/api/v1`;
      const client = await call("POST", "/clients", { token, body: { company_name: "Before" }, baseUrl });
      expect(client.status).toBe(200);

      signalPostgres(dataDir, "SIGSTOP");
      stopped = true;
      const timed = async (method: string, pathname: string, body?: unknown) => {
        const res = await fetch(`${baseUrl}${pathname}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
          signal: AbortSignal.timeout(5000), // the promise: an answer within 5 s
        });
        return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as any };
      };
      for (const [method, pathname, body] of [
        ["GET", `/clients/${client.body.client.id}`],
        ["POST", "/orders", { title: "During the outage", client_id: client.body.client.id }],
        ["GET", "/orders"],
      ] as const) {
        const res = await timed(method, pathname, body);
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe("service_unavailable");
        expect(Number(res.retryAfter)).toBeGreaterThan(0);
      }

      signalPostgres(dataDir, "SIGCONT");
      stopped = false;
      await waitFor(
        "the API to answer again",
        () => call("GET", `/clients/${client.body.client.id}`, { token, baseUrl }),
        (res) => res.status === 200,
      );
      // Nothing half-written: a write the outage cut off either happened whole (project with its invoice) or not at all.
      const { rows } = await pool.query(
        "select count(*)::int as n from projects p where p.company_id = $1 and not exists (select 1 from invoices i where i.project_id = p.id)",
        [company_id],
      );
      expect(rows).toEqual([{ n: 0 }]);
      expect((await call("POST", "/orders", { token, body: { title: "After", client_id: client.body.client.id }, baseUrl })).status).toBe(
        200,
      );
    } finally {
      if (stopped) signalPostgres(dataDir, "SIGCONT");
      await worker?.dispose();
      await pool.end();
      await stack.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the isolate's cap on database calls (DB_MAX_CONCURRENCY)", () => {
  /** A Worker of createDb alone (test/fixtures/db-calls), with these settings. */
  async function dbCallsWorker(settings: Record<string, string>) {
    const worker = await fixtureWorker("db-calls", settings);
    return {
      get: async (pathname: string) => {
        const res = await fetch(`${worker.url}${pathname}`);
        return { status: res.status, body: (await res.json().catch(() => null)) as { running?: number; unavailable?: boolean } | null };
      },
      stop: worker.stop,
    };
  }

  it("runs at most that many calls at once; the others wait for a slot, each resumed in its own request", { timeout: 60_000 }, async () => {
    const w = await dbCallsWorker({ DB_MAX_CONCURRENCY: "2" });
    try {
      const answers = await Promise.all(Array.from({ length: 12 }, () => w.get("/query?sleep_ms=100")));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      const running = answers.map((a) => a.body!.running!);
      expect(Math.max(...running)).toBeLessThanOrEqual(2);
      // The cap was reached (some waited), so the answers above are those of waiting calls too.
      expect(Math.max(...running)).toBe(2);
    } finally {
      await w.stop();
    }
  });

  it("a request that ends with its call in flight does not keep the slot: it is free again by the deadline", {
    timeout: 60_000,
  }, async () => {
    // One slot and a 1.5 s deadline. workerd drops an ended request's continuations, so the abandoned
    // call never gives its slot back itself; it lapses at the deadline, by when the call has ended anyway.
    const w = await dbCallsWorker({ DB_MAX_CONCURRENCY: "1", DB_DEADLINE_MS: "1500" });
    try {
      expect((await w.get("/abandon?sleep_ms=300")).status).toBe(200);
      // A call arriving a little later (a call arriving in the same instant may reach its own deadline first).
      await new Promise((r) => setTimeout(r, 200));
      const next = await w.get("/query");
      expect(next).toEqual({ status: 200, body: expect.objectContaining({ running: 1 }) });
      // And the slot keeps working for the calls after it.
      expect((await w.get("/query")).status).toBe(200);
    } finally {
      await w.stop();
    }
  });
});
