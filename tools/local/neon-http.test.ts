import { once } from "node:events";
import { createConnection } from "node:net";
import { neon, neonConfig } from "@neondatabase/serverless";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/neon-http";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { waitFor } from "../../test/support/api";
import { type SqlOverHttp, sqlOverHttp } from "./neon-http";
import { startWsProxy, type WsProxy } from "./ws-proxy";

/**
 * Neon's SQL-over-HTTP protocol served by the local stack, used by the unchanged
 * @neondatabase/serverless `neon()` client (and drizzle's neon-http on top of it) from Node, with
 * `fetchEndpoint` pointed at it as the Worker does, against the suite's embedded PostgreSQL.
 */
let target = "";
neonConfig.fetchEndpoint = () => `http://${target}/sql`;

const DELAY_MS = 40;
const servers: { sql: SqlOverHttp; proxy: WsProxy }[] = [];
let plain: WsProxy;
let delayed: WsProxy;
let direct: pg.Pool;

async function start(delayMs = 0) {
  const server = sqlOverHttp({ delayMs });
  const proxy = await startWsProxy({ delayMs, http: server.listener });
  servers.push({ sql: server, proxy });
  return proxy;
}

beforeAll(async () => {
  plain = await start();
  delayed = await start(DELAY_MS);
  direct = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
});

afterAll(async () => {
  await direct?.end();
  for (const s of servers) {
    await s.proxy.stop();
    await s.sql.close();
  }
});

const client = (proxy: WsProxy) => {
  target = proxy.address;
  return neon(inject("databaseUrl"));
};

const BIG = "select i, md5(i::text) as h, (i * 1.5)::numeric(10,2) as n from generate_series(1, 5000) as i order by i";

describe("Neon SQL over HTTP (local)", () => {
  it("answers single statements with parameters, typed by the driver from the raw text", async () => {
    const q = client(plain);
    const rows = await q.query(
      "select $1::text as t, $2::int + 1 as n, $3::numeric as d, $4::jsonb as j, null::int as z, $5::timestamptz as ts, $6::int[] as a",
      ["héllo", 41, "12.30", JSON.stringify({ a: [1, "x"] }), "2026-01-02T03:04:05Z", [1, 2, 3]],
    );
    expect(rows).toEqual([
      { t: "héllo", n: 42, d: "12.30", j: { a: [1, "x"] }, z: null, ts: new Date("2026-01-02T03:04:05Z"), a: [1, 2, 3] },
    ]);

    // Array mode and full results, as drizzle asks for them.
    const full = await q.query("select 1 as one, 'two' as two", [], { arrayMode: true, fullResults: true });
    expect(full.rows).toEqual([[1, "two"]]);
    expect(full.fields.map((f) => [f.name, f.dataTypeID])).toEqual([
      ["one", 23],
      ["two", 25],
    ]);
    expect(full.command).toBe("SELECT");
    expect(full.rowCount).toBe(1);

    // Large results arrive whole and in order.
    const expected = (await direct.query(BIG)).rows;
    expect(await q.query(BIG)).toEqual(expected);
  });

  it("reports PostgreSQL's errors with their fields, and keeps serving", async () => {
    const q = client(plain);
    const error = await q.query("select 1/0").catch((e) => e);
    expect(error).toMatchObject({ name: "NeonDbError", message: "division by zero", code: "22012", severity: "ERROR" });

    const constraint = await q
      .query("insert into api_tokens (company_id, token_hash) values (-1, 'x') returning id")
      .catch((e: Record<string, unknown>) => e);
    expect(constraint).toMatchObject({ code: "23503", table: "api_tokens", constraint: expect.stringContaining("company") });
    expect(await q.query("select 1 as one")).toEqual([{ one: 1 }]);

    // One statement per query, as Neon: no second statement smuggled in.
    await expect(q.query("select 1; select 2")).rejects.toMatchObject({ code: "42601" });
  });

  it("runs transaction([...]) as one transaction: all statements or none, in the asked mode", async () => {
    const q = client(plain);
    const name = `batch-${process.pid}-${Date.now()}`;
    const [inserted, read] = await q.transaction((tx) => [
      tx.query("insert into companies (name) values ($1) returning name", [name]),
      tx.query("select count(*)::int as n from companies where name = $1", [name]),
    ]);
    expect(inserted).toEqual([{ name }]);
    expect(read).toEqual([{ n: 1 }]);

    const failed = `${name}-rolled-back`;
    await expect(
      q.transaction((tx) => [tx.query("insert into companies (name) values ($1)", [failed]), tx.query("select 1/0")]),
    ).rejects.toMatchObject({ code: "22012" });
    expect((await direct.query("select count(*)::int as n from companies where name = $1", [failed])).rows).toEqual([{ n: 0 }]);

    // Read-only batches refuse writes; the isolation level reaches PostgreSQL.
    await expect(
      q.transaction((tx) => [tx.query("insert into companies (name) values ($1)", [failed])], { readOnly: true }),
    ).rejects.toMatchObject({ code: "25006" });
    const [[level]] = await q.transaction((tx) => [tx.query("show transaction_isolation")], { isolationLevel: "Serializable" });
    expect(level).toEqual({ transaction_isolation: "serializable" });
  });

  it("serves drizzle's neon-http driver (array mode, raw text mapped by the schema's columns)", async () => {
    const db = drizzle(client(plain));
    const result = await db.execute(sql`select ${"x"}::text as v, ${2}::int as n`);
    expect(result.rows).toEqual([{ v: "x", n: 2 }]);
    const [batchA, batchB] = await db.batch([db.execute(sql`select 1 as a`), db.execute(sql`select 2 as b`)]);
    expect([batchA.rows, batchB.rows]).toEqual([[{ a: 1 }], [{ b: 2 }]]);
  });

  it("answers 404 to other paths and methods, and 400 without a connection string", async () => {
    expect((await fetch(`http://${plain.address}/other`, { method: "POST" })).status).toBe(404);
    expect((await fetch(`http://${plain.address}/sql`)).status).toBe(404);
    const res = await fetch(`http://${plain.address}/sql`, { method: "POST", body: JSON.stringify({ query: "select 1", params: [] }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: "Neon-Connection-String header is required" });
  });

  it("a caller that goes away mid-body is dropped quietly, and the next query is served", async () => {
    // Half the announced body, then the socket closes: reading the rest fails in the endpoint, which
    // must not leave that failure unhandled (vitest fails the run on an unhandled rejection).
    const [host, port] = plain.address.split(":");
    const socket = createConnection({ host, port: Number(port) });
    await once(socket, "connect");
    socket.write(`POST /sql HTTP/1.1\r\nHost: ${plain.address}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":`);
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect(await client(plain).query("select 1 as one")).toEqual([{ one: 1 }]);
  });

  it("a backend terminated while a request holds its connection costs that request only; the endpoint keeps serving", async () => {
    // The answer is held 300 ms with the connection still checked out: the backend is terminated then.
    // The pool listens for errors on idle connections only; unheard, the connection's 'error' event
    // would end the process (here: vitest's worker, an uncaught exception).
    const slow = await start(300);
    const name = `victim-${process.pid}-${Date.now()}`;
    const url = new URL(inject("databaseUrl"));
    url.searchParams.set("application_name", name);
    target = slow.address;
    const victim = neon(url.toString());
    const inFlight = victim.query("select 1 as one").then(
      (rows) => ({ rows }),
      (error: Error) => ({ error }),
    );
    const backend = await waitFor(
      "the query's backend to go idle (answer held)",
      async () => (await direct.query("select pid, state from pg_stat_activity where application_name = $1", [name])).rows[0],
      (row) => row?.state === "idle",
    );
    await direct.query("select pg_terminate_backend($1)", [backend.pid]);
    await inFlight; // answered or failed: either way only this request
    await new Promise((r) => setTimeout(r, 100));
    target = slow.address;
    expect(await neon(url.toString()).query("select 2 as two")).toEqual([{ two: 2 }]);
  });

  it("with delayMs, holds every request and answer (N queries take at least N × 2 × delay)", async () => {
    const q = client(delayed);
    const n = 5;
    const start = performance.now();
    for (let i = 0; i < n; i++) expect(await q.query("select $1::int as i", [i])).toEqual([{ i }]);
    // A lower bound only: without the delay these take a few milliseconds (1 ms of slack per hop).
    expect(performance.now() - start).toBeGreaterThanOrEqual(n * 2 * (DELAY_MS - 1));
    // A batch is one request: one round trip whatever it holds.
    const batchStart = performance.now();
    await q.transaction((tx) => Array.from({ length: 5 }, (_, i) => tx.query("select $1::int as i", [i])));
    const batch = performance.now() - batchStart;
    expect(batch).toBeGreaterThanOrEqual(2 * (DELAY_MS - 1));
  });
});
