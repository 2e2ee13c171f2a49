/**
 * Latency benchmark: `npm run bench`. Runs the real Worker bundle in workerd against the local
 * stack with a fixed delay on every database message (each way) and on every Redis answer, then
 * times each endpoint. The median minus the no-delay median, divided by the round-trip cost,
 * estimates the round trips a request makes: the number to keep small on the edge.
 *   BENCH_DB_DELAY_MS (default 10), BENCH_REDIS_DELAY_MS (default 10), BENCH_RUNS (default 15),
 *   BENCH_ONLY (substring of scenario names to run, e.g. "orders")
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../src/db/schema";
import { startStack } from "../../tools/local/stack";
import { createCompany, createToken, importFile } from "../../tools/ops/commands";
import { runMigrations } from "../../tools/ops/migrate";
import { buildWorker, startWorker } from "../support/worker";
import { benchScenarios } from "./scenarios";

const dbDelay = Number(process.env.BENCH_DB_DELAY_MS ?? 10);
const redisDelay = Number(process.env.BENCH_REDIS_DELAY_MS ?? 10);
const runs = Number(process.env.BENCH_RUNS ?? 15);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(delays: { db: number; redis: number }) {
  const tmp = mkdtempSync(path.join(tmpdir(), "crm-bench-"));
  chmodSync(tmp, 0o755);
  const stack = await startStack({ dataDir: path.join(tmp, "pg"), redis: "required", proxyDelayMs: delays.db, redisDelayMs: delays.redis });
  const worker = await (async () => {
    await runMigrations(stack.postgres!.url);
    const script = buildWorker(path.join(tmp, "worker"));
    return startWorker({ script, bindings: stack.vars, logFile: path.join(tmp, "worker.log") });
  })();
  const pool = new pg.Pool({ connectionString: stack.postgres!.url });
  const disposers: (() => Promise<void>)[] = [];
  try {
    const db = drizzle(pool, { schema });
    const { company_id } = await createCompany(db, { name: "Bench Co" });
    const { token } = await createToken(db, { companyId: company_id });
    const load = async (data: unknown) => (await importFile(db, { companyId: company_id, data })).ids;
    const ctx = { db, companyId: company_id, load, onDispose: (fn: () => Promise<void>) => void disposers.push(fn) };
    const ids = await load(JSON.parse(readFileSync(path.join(import.meta.dirname, "../../tools/ops/demo-seed.json"), "utf8")));
    const results: Record<string, number> = {};
    const only = process.env.BENCH_ONLY?.toLowerCase();
    for (const scenario of benchScenarios.filter((s) => !only || s.name.toLowerCase().includes(only))) {
      const request = await scenario.prepare({ ...ctx, ids });
      const times: number[] = [];
      for (let i = 0; i < runs + 2; i++) {
        const started = performance.now();
        const res = await fetch(`${worker.url}/api/v1${request.path}`, {
          method: request.method ?? "GET",
          headers: { authorization: `Bearer ${token}`, ...(request.body ? { "content-type": "application/json" } : {}) },
          body: request.body ? JSON.stringify(request.body) : undefined,
        });
        await res.arrayBuffer();
        if (res.status >= 300) throw new Error(`${scenario.name}: ${res.status}`);
        if (i >= 2) times.push(performance.now() - started); // first two warm the isolate
      }
      results[scenario.name] = median(times);
    }
    return results;
  } finally {
    for (const dispose of disposers) await dispose();
    await pool.end();
    await worker.dispose();
    await stack.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

const base = await measure({ db: 0, redis: 0 });
const slow = await measure({ db: dbDelay, redis: redisDelay });
const rtt = 2 * dbDelay;
console.log(`database round trip = ${rtt} ms (2 x ${dbDelay} ms), Redis answer = +${redisDelay} ms, ${runs} runs, medians`);
console.log(["scenario".padEnd(46), "no delay", "delayed", "added", "≈ DB round trips"].join("  "));
for (const name of Object.keys(base)) {
  const added = slow[name] - base[name];
  console.log(
    [
      name.padEnd(46),
      `${base[name].toFixed(1)} ms`.padStart(8),
      `${slow[name].toFixed(1)} ms`.padStart(7),
      `${added.toFixed(1)} ms`.padStart(6),
      (added / rtt).toFixed(1).padStart(8),
    ].join("  "),
  );
}
process.exit(0);
