import { neonConfig, Pool } from "@neondatabase/serverless";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { startWsProxy, type WsProxy } from "./ws-proxy";

/**
 * The Neon-convention WebSocket proxy, used by the unchanged @neondatabase/serverless Pool from
 * Node (configured as the Worker configures it for the local stack) against the suite's
 * embedded PostgreSQL. Node 20 has no global WebSocket: the driver gets `ws`.
 */
let target = "";
neonConfig.webSocketConstructor = WebSocket;
neonConfig.wsProxy = (host, port) => `${target}/v1?address=${host}:${port}`;
neonConfig.useSecureWebSocket = false;
neonConfig.pipelineConnect = false;

const DELAY_MS = 40;
let plain: WsProxy;
let delayed: WsProxy;
let direct: pg.Pool;

beforeAll(async () => {
  plain = await startWsProxy();
  delayed = await startWsProxy({ delayMs: DELAY_MS });
  direct = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
});

afterAll(async () => {
  await direct?.end();
  await plain?.stop();
  await delayed?.stop();
});

/** A Neon Pool whose connections go through `proxy` (chosen when each connection opens). */
async function withPool<T>(proxy: WsProxy, fn: (pool: Pool) => Promise<T>, connectionString = inject("databaseUrl")) {
  target = proxy.address;
  const pool = new Pool({ connectionString, max: 4 });
  pool.on("error", () => {});
  try {
    return await fn(pool);
  } finally {
    await pool.end().catch(() => {});
  }
}

/** A big, ordered result: 5000 rows of 32 hex characters, about 200 kB on the wire. */
const BIG = "select i, md5(i::text) as h from generate_series(1, 5000) as i order by i";

describe("ws proxy (Neon wsproxy convention)", () => {
  it("carries the Neon driver's queries, parameters and transactions to PostgreSQL", async () => {
    await withPool(plain, async (pool) => {
      const { rows } = await pool.query("select $1::text as t, $2::int + 1 as n, current_database() as db", ["héllo", 41]);
      expect(rows).toEqual([{ t: "héllo", n: 42, db: new URL(inject("databaseUrl")).pathname.slice(1) }]);

      const client = await pool.connect();
      try {
        await client.query("begin");
        await client.query("create temporary table proxy_probe (v text) on commit drop");
        await client.query("insert into proxy_probe values ($1), ($2)", ["a", "b"]);
        expect((await client.query("select string_agg(v, ',' order by v) as s from proxy_probe")).rows).toEqual([{ s: "a,b" }]);
        await client.query("commit");
      } finally {
        client.release();
      }

      // PostgreSQL's own errors come through as errors, and the connection stays usable.
      await expect(pool.query("select 1/0")).rejects.toThrow("division by zero");
      expect((await pool.query("select 1 as one")).rows).toEqual([{ one: 1 }]);

      const expected = (await direct.query(BIG)).rows;
      expect((await pool.query(BIG)).rows).toEqual(expected);
    });
  });

  it("refuses an address that is not host:port", async () => {
    for (const query of ["", "?address=", "?address=localhost", "?address=127.0.0.1:", "?address=:5432"]) {
      const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
        const socket = new WebSocket(`ws://${plain.address}/v1${query}`);
        socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() }));
        socket.on("error", reject);
      });
      expect(closed).toEqual({ code: 1008, reason: "address must be host:port" });
    }
  });

  it("closes the connection when the address cannot be reached, so the driver fails instead of hanging", async () => {
    const closedPort = new URL(inject("databaseUrl"));
    closedPort.port = "1";
    await withPool(
      plain,
      async (pool) => {
        await expect(pool.query("select 1")).rejects.toThrow();
      },
      closedPort.toString(),
    );
  });

  it("with delayMs, keeps every byte and its order, also for concurrent connections", async () => {
    const expected = (await direct.query(BIG)).rows;
    await withPool(delayed, async (pool) => {
      const answers = await Promise.all([
        pool.query(BIG),
        ...Array.from({ length: 3 }, (_, i) => pool.query("select $1::int as i, repeat(md5($1::text), 2000) as s", [i])),
      ]);
      expect(answers[0].rows).toEqual(expected);
      for (let i = 0; i < 3; i++) {
        expect(answers[i + 1].rows).toEqual((await direct.query("select $1::int as i, repeat(md5($1::text), 2000) as s", [i])).rows);
      }
    });
  });

  it("with delayMs, delays every message in both directions (N round trips take at least N × 2 × delay)", async () => {
    const n = 10;
    const elapsed = await withPool(delayed, async (pool) => {
      const client = await pool.connect(); // connection setup is not counted
      try {
        const start = performance.now();
        for (let i = 0; i < n; i++) expect((await client.query("select $1::int as i", [i])).rows).toEqual([{ i }]);
        return performance.now() - start;
      } finally {
        client.release();
      }
    });
    // Each query is one message to PostgreSQL and one answer back, each held for DELAY_MS. A
    // lower bound only: without the delay these ten queries take a few milliseconds. (1 ms per
    // hop of slack: Node's timers count from the event loop's cached clock.)
    expect(elapsed).toBeGreaterThanOrEqual(n * 2 * (DELAY_MS - 1));
  });
});
