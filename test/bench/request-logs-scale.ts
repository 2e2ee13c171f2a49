/**
 * The request log at scale: the section "request logs" of `npm run bench:scale` (test/bench/scale.ts:
 * `--request-logs <n>` entries for the big company, default 10,000,000; `--request-logs-small <n>`, default
 * 100,000; `--only "request logs"` runs this section alone; `--request-logs 0` skips it).
 *
 * Fills `request_logs` through SQL (generate_series, not the API) with n entries for one company and
 * `small` for another, spread over the 30 days kept (kept in `dir` and reused: delete it to fill again),
 * then times, interleaved, the list queries the API and the settings page run
 * (src/routes/request-logs/queries.ts) for both companies: the first page, by token, by 4xx, by operation,
 * and a token's 4xx. Prints the p50 of each, their ratio (goal ≤ 2×) and the verdict. Then times the queue
 * consumer's batch writer (writeRequestLogs: one multi-row INSERT per batch of 100) for 20,000 entries:
 * entries per second (goal ≥ 2,000). The queries go over node-postgres to a PostgreSQL of its own (the
 * default 128 MB shared_buffers), not through the Worker: what is measured is the statements and their indexes.
 */
import { mkdirSync } from "node:fs";
import { cpus } from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import * as schema from "../../src/db/schema";
import type { Db } from "../../src/platform/db";
import { writeRequestLogs } from "../../src/platform/request-log-store";
import { listRequestLogs, type RequestLogFilters, type RequestLogReader } from "../../src/routes/request-logs/queries";
import { startStack } from "../../tools/local/stack";
import { projectRoot } from "../../tools/ops/config";

/** The section's name, which `--only` of bench:scale matches to run it alone. */
export const REQUEST_LOGS_SECTION = "request logs";

/** Where the entries are kept between runs: under the scale run's `--dir`, or .bench-request-logs/<n>/. */
export const requestLogsDir = (n: number, scaleDir?: string) =>
  path.resolve(scaleDir ? path.join(scaleDir, "request-logs") : path.join(projectRoot, ".bench-request-logs", String(n)));

const OPERATIONS = [
  "listClients",
  "getClient",
  "createClient",
  "updateClient",
  "listOrders",
  "getOrder",
  "createOrder",
  "updateOrder",
  "createOrderItem",
  "listEvents",
  "searchProducts",
  "getMe",
];

/** One company's entries: five tokens, 92% 2xx, 7% 4xx, 1% 5xx, operations round-robin, newest at now. */
async function fill(client: pg.Client, companyId: number, n: number) {
  const started = Date.now();
  // Chunks of 200,000 keep each statement's memory and WAL bounded.
  for (let from = 1; from <= n; from += 200_000) {
    const to = Math.min(n, from + 199_999);
    await client.query(
      `insert into request_logs (created_at, company_id, request_id, seq, method, path, operation, status, status_class, error_code,
         duration_ms, token_id, idempotent_replay)
       select now() - (i::float8 / $2::int) * interval '29 days 23 hours', $1::int, 'bench-' || $1::int || '-' || i, 0,
         case when i % 4 = 0 then 'POST' else 'GET' end, '/api/v1/clients', ($3::text[])[1 + i % ${OPERATIONS.length}],
         s, s / 100, case when s >= 400 then 'not_found' end, 20 + i % 200, 1 + i % 5, false
       from generate_series($4::int, $5::int) i,
         lateral (select case when i % 100 < 92 then 200 when i % 100 < 99 then 404 else 500 end as s) st`,
      [companyId, n, OPERATIONS, from, to],
    );
  }
  console.log(`  company ${companyId}: ${n} entries in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function timeRequestLogs({ n: N, small: SMALL, runs: RUNS, dir }: { n: number; small: number; runs: number; dir: string }) {
  if (!Number.isInteger(N) || !Number.isInteger(SMALL) || SMALL < 3000 || N < SMALL)
    throw new Error("--request-logs must be at least --request-logs-small, and that at least 3,000 (a full page of each filter)");
  mkdirSync(dir, { recursive: true });
  const stack = await startStack({
    dataDir: path.join(dir, "postgres"),
    redis: "none",
    log: (line) => {
      // PostgreSQL's own errors only (a failed fill statement says why here).
      if (/ERROR|FATAL|DETAIL/.test(line)) console.log(`  postgres: ${line.trim()}`);
    },
  });
  try {
    const client = new pg.Client({ connectionString: stack.postgres!.url });
    await client.connect();
    await migrate(drizzle(client), { migrationsFolder: path.join(projectRoot, "drizzle") });
    await client.query("select request_log_partitions(7, 30, 31)");
    const [big, small] = [900_001, 900_002];
    const count = async (id: number) =>
      Number((await client.query("select count(*) n from request_logs where company_id = $1", [id])).rows[0].n);
    if ((await count(big)) !== N || (await count(small)) !== SMALL) {
      await client.query("delete from request_logs where company_id = any($1)", [[big, small]]);
      console.log(`filling ${N} and ${SMALL} entries into ${dir} …`);
      await fill(client, big, N);
      await fill(client, small, SMALL);
      await client.query("vacuum analyze request_logs");
    }
    const db = drizzle(client, { schema }) as unknown as Db;
    const cases: { name: string; reader: (co: number) => RequestLogReader; filters: RequestLogFilters }[] = [
      { name: "first page (company)", reader: (co) => ({ companyId: co }), filters: {} },
      { name: "first page (a token: the API)", reader: (co) => ({ companyId: co, tokenId: 3 }), filters: {} },
      { name: "by token (settings)", reader: (co) => ({ companyId: co }), filters: { token_id: 2 } },
      { name: "by 4xx", reader: (co) => ({ companyId: co }), filters: { status: "4xx" } },
      { name: "by 500", reader: (co) => ({ companyId: co }), filters: { status: "500" } },
      { name: "by operation", reader: (co) => ({ companyId: co }), filters: { operation: "createOrder" } },
      { name: "a token's 4xx (the API)", reader: (co) => ({ companyId: co, tokenId: 3 }), filters: { status: "4xx" } },
    ];
    console.log(`\n${new Date().toISOString()} · ${cpus().length} × ${cpus()[0]?.model} · p50 of ${RUNS} runs, 26 rows a page`);
    console.log(`| query | ${SMALL} entries (ms) | ${N} entries (ms) | ratio | goal | verdict |`);
    console.log("|---|---:|---:|---:|---|---|");
    for (const c of cases) {
      const times = { big: [] as number[], small: [] as number[] };
      for (let run = 0; run < RUNS + 2; run++) {
        for (const [which, co] of [
          ["small", small],
          ["big", big],
        ] as const) {
          const t = performance.now();
          const rows = await listRequestLogs(db, c.reader(co), c.filters, undefined, 26);
          const ms = performance.now() - t;
          if (rows.length !== 26) throw new Error(`${c.name}: ${rows.length} rows`);
          if (run >= 2) times[which].push(ms); // two warm-up runs
        }
      }
      const ratio = p50(times.big) / p50(times.small);
      console.log(
        `| ${c.name} | ${p50(times.small).toFixed(2)} | ${p50(times.big).toFixed(2)} | ${ratio.toFixed(2)} | ≤ 2× | ${ratio <= 2 ? "met" : "MISSED"} |`,
      );
    }

    // The consumer's batch writer: batches of 100 (the queue's max_batch_size), one INSERT each.
    const total = 20_000;
    const t = performance.now();
    for (let b = 0; b < total / 100; b++) {
      const now = new Date();
      await writeRequestLogs(
        db,
        Array.from({ length: 100 }, (_, i) => ({
          createdAt: now,
          companyId: small,
          requestId: `writer-${Date.now()}-${b}-${i}`,
          method: "GET",
          path: "/api/v1/clients?q=[redacted]",
          operation: "listClients",
          status: 200,
          statusClass: 2,
          durationMs: 31,
          tokenId: 1,
        })),
      );
    }
    const perSecond = total / ((performance.now() - t) / 1000);
    console.log(
      `\n| batch writer (100 entries per INSERT) | ${perSecond.toFixed(0)} entries/s | goal ≥ 2,000 | ${perSecond >= 2000 ? "met" : "MISSED"} |`,
    );
    await client.query("delete from request_logs where request_id like 'writer-%'");
    await client.end();
  } finally {
    await stack.stop();
  }
}
