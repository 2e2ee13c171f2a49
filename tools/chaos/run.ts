/**
 * Reliability figures: `npm run chaos`. Starts its own local stack (embedded PostgreSQL, the ws
 * proxy, redis-server behind the Upstash server) and the real Worker bundle in workerd, then
 * provokes, one after another: a burst on one key, stalled request bodies, a stalled Redis, a
 * stopped PostgreSQL (SIGSTOP), and PostgreSQL stopped, killed and restarted under writers on every
 * write path (./database-faults.ts, with a fake QuickBooks and a webhook receiver), and prints what it
 * measures. It reports, it does not assert (test/database-faults.test.ts asserts the last part).
 * Traffic goes to 127.0.0.1 only; every wait has a deadline (about five minutes in all).
 *   CHAOS_BURST (default 400): concurrent requests in the burst.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../src/db/schema";
import { BODY_READ_TIMEOUT_MS } from "../../src/http/json-body";
import type { Db } from "../../src/platform/db";
import { CIRCUIT_RETRY_MS, LIMITER_TIMEOUT_MS, RATE_LIMIT } from "../../src/ratelimit";
import { startFakeQbo } from "../../test/fakes/qbo";
import { startWebhookReceiver } from "../../test/fakes/webhook-receiver";
import { buildWorker, startWorker } from "../../test/support/worker";
import { startStack } from "../local/stack";
import { createCompany, createToken } from "../ops/commands";
import { runMigrations } from "../ops/migrate";
import { DATABASE_FAULTS_WORKER_VARS, runDatabaseFaults } from "./database-faults";
import { postmasterPid, processTree, signalAll } from "./processes";

const BURST = Number(process.env.CHAOS_BURST ?? 400);
/** The longest any one request is waited for before it counts as "no answer". */
const ANSWER_DEADLINE_MS = 30_000;

interface Outcome {
  status: number | "no answer" | "error";
  ms: number;
  limited: boolean;
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function summary(outcomes: Outcome[]) {
  const byStatus: Record<string, number> = {};
  for (const o of outcomes) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
  const ms = outcomes.map((o) => o.ms);
  return {
    requests: outcomes.length,
    statuses: byStatus,
    p50_ms: pct(ms, 50),
    p95_ms: pct(ms, 95),
    max_ms: Math.round(Math.max(...ms)),
    without_limiter_headers: outcomes.filter((o) => o.status === 200 && !o.limited).length,
  };
}

async function main() {
  const started = Date.now();
  const tmp = mkdtempSync(path.join(tmpdir(), "crm-chaos-"));
  chmodSync(tmp, 0o755); // PostgreSQL runs as the `postgres` user and must reach its data dir
  const dataDir = path.join(tmp, "postgres");
  console.log("starting the local stack and building the Worker…");
  const restarts: string[] = [];
  // Kept running as `npm run dev` keeps it: the last scenario kills the postmaster.
  const stack = await startStack({ dataDir, redis: "required", onPostgresRestart: (line) => restarts.push(line) });
  const pool = new pg.Pool({ connectionString: stack.postgres!.url, max: 2 });
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  let faultsWorker: Awaited<ReturnType<typeof startWorker>> | undefined;
  const fakes = await Promise.all([startFakeQbo(), startWebhookReceiver()]);
  const postgresPid = postmasterPid(dataDir);
  const stopped: number[] = [];
  try {
    await runMigrations(stack.postgres!.url);
    mkdirSync(path.join(tmp, "worker"));
    const script = buildWorker(path.join(tmp, "worker"));
    const logFile = path.join(tmp, "worker.log");
    worker = await startWorker({ script, bindings: stack.vars, logFile });
    const db = drizzle(pool, { schema }) as unknown as Db;
    const { company_id } = await createCompany(db, { name: "Chaos Co" });
    const newToken = async () => (await createToken(db, { companyId: company_id })).token;
    const base = `${worker.url}/api/v1`;

    const request = async (token: string, init: RequestInit & { path?: string } = {}): Promise<Outcome> => {
      const t0 = performance.now();
      try {
        const res = await fetch(`${base}${init.path ?? "/clients?per_page=1"}`, {
          ...init,
          headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
          signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
        });
        await res.arrayBuffer();
        return { status: res.status, ms: performance.now() - t0, limited: res.headers.has("x-ratelimit-limit") };
      } catch (e) {
        const timedOut = e instanceof DOMException && e.name === "TimeoutError";
        return { status: timedOut ? "no answer" : "error", ms: performance.now() - t0, limited: false };
      }
    };
    const sequential = async (token: string, n: number) => {
      const out: Outcome[] = [];
      for (let i = 0; i < n; i++) out.push(await request(token));
      return out;
    };
    /** Sessions PostgreSQL has seen end (each request that touches the database opens one). */
    const sessions = async () => {
      await sleep(1500); // backends exit after the response; their statistics are flushed a moment later
      await pool.query("select pg_stat_clear_snapshot()");
      return Number((await pool.query("select sessions from pg_stat_database where datname = current_database()")).rows[0].sessions);
    };
    const report: Record<string, unknown> = {};

    // Baseline: a healthy stack, one request at a time and 50 at once.
    const warm = await newToken();
    await sequential(warm, 5);
    report.baseline = {
      one_at_a_time: summary(await sequential(warm, 40)),
      fifty_concurrent: summary(await Promise.all(Array.from({ length: 50 }, () => request(warm)))),
    };

    // Burst: BURST concurrent requests on one fresh key, then 100 more on the now refused key,
    // counting the database sessions those open (against 20 served requests on another key).
    const burstToken = await newToken();
    // Within one fixed window of the limiter, so the figures do not depend on the clock: past a
    // window boundary the previous window's requests weigh less and some of the 100 would pass.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 35_000) await sleep(60_000 - intoWindow + 500);
    const burst = await Promise.all(Array.from({ length: BURST }, () => request(burstToken)));
    const s0 = await sessions();
    const refused = await Promise.all(Array.from({ length: 100 }, () => request(burstToken)));
    const s1 = await sessions();
    const servedToken = await newToken();
    const served = await Promise.all(Array.from({ length: 20 }, () => request(servedToken)));
    const s2 = await sessions();
    report.burst = {
      ...summary(burst),
      served_over_limit: Math.max(0, burst.filter((o) => o.status === 200).length - RATE_LIMIT),
      then_100_more: { ...summary(refused), database_sessions: s1 - s0 },
      for_comparison_20_served_on_another_key: { ...summary(served), database_sessions: s2 - s1 },
    };

    // Stalled bodies: 20 uploads that send half a body and stop, while a client keeps making requests.
    const healthyToken = await newToken();
    const stalledBodies = Array.from({ length: 20 }, () =>
      request(healthyToken, {
        method: "POST",
        path: "/clients",
        headers: { "content-type": "application/json" },
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"company_name": "stal'));
          },
        }),
        duplex: "half",
      } as RequestInit),
    );
    const alongside = await sequential(healthyToken, 40);
    report.stalled_bodies = { ...summary(await Promise.all(stalledBodies)), meanwhile_other_requests: summary(alongside) };

    // Redis stalled: SIGSTOP, requests one at a time, then SIGCONT and the time until Redis limits again.
    const redisToken = await newToken();
    stack.redis!.process.kill("SIGSTOP");
    stopped.push(stack.redis!.process.pid!);
    const redisStalled = await sequential(redisToken, 60);
    const concurrentStalled = await Promise.all(Array.from({ length: 50 }, () => request(redisToken)));
    stack.redis!.process.kill("SIGCONT");
    stopped.pop();
    const resumed = Date.now();
    let recoveredMs = Number.NaN;
    while (Date.now() - resumed < CIRCUIT_RETRY_MS + 10_000) {
      if ((await request(redisToken)).limited) {
        recoveredMs = Date.now() - resumed;
        break;
      }
      await sleep(200);
    }
    report.redis_stalled = {
      one_at_a_time: { ...summary(redisStalled), waited_the_deadline: redisStalled.filter((o) => o.ms >= LIMITER_TIMEOUT_MS).length },
      fifty_concurrent: summary(concurrentStalled),
      limited_again_after_resume_ms: recoveredMs,
    };

    // PostgreSQL stopped: every process of the server SIGSTOPped for 15 s while requests arrive.
    const pgToken = await newToken();
    await sequential(pgToken, 3);
    const tree = processTree(postgresPid);
    signalAll(tree, "SIGSTOP");
    stopped.push(...tree);
    const pgStopped = Date.now();
    const duringStop = Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await sleep(i * 500);
        return request(pgToken);
      }),
    );
    await sleep(15_000);
    signalAll(tree, "SIGCONT");
    stopped.length = 0;
    const pgResumed = Date.now();
    const during = await duringStop;
    let pgRecoveredMs = Number.NaN;
    while (Date.now() - pgResumed < 30_000) {
      if ((await request(pgToken)).status === 200) {
        pgRecoveredMs = Date.now() - pgResumed;
        break;
      }
      await sleep(200);
    }
    report.postgres_stopped = {
      stopped_for_ms: pgResumed - pgStopped,
      requests_during_stop: summary(during),
      first_200_after_resume_ms: pgRecoveredMs,
    };

    // PostgreSQL stopped, killed and restarted under writers on every write path, on a Worker whose deliveries
    // retry within seconds; last, since it replaces the postmaster.
    const faultsLog = path.join(tmp, "worker-faults.log");
    faultsWorker = await startWorker({ script, bindings: { ...stack.vars, ...DATABASE_FAULTS_WORKER_VARS }, logFile: faultsLog });
    const faults = await runDatabaseFaults({
      api: `${faultsWorker.url}/api/v1`,
      postgres: stack.postgres!,
      dataDir,
      qbo: fakes[0],
      receiver: fakes[1],
      logFile: faultsLog,
      runCron: () => faultsWorker!.scheduled(),
      log: (line) => console.log(line),
    });
    const statuses = Object.values(faults.answers).flatMap((counts) => Object.entries(counts));
    report.database_faults = {
      ...faults,
      answers_5xx_other_than_503: statuses.filter(([status]) => status !== "503" && /^5/.test(status)).reduce((n, [, c]) => n + c, 0),
      postgres_restarts: restarts,
    };

    const logLines = readFileSync(logFile, "utf8").split("\n").filter(Boolean);
    const errors: Record<string, number> = {};
    for (const line of logLines) {
      const entry = JSON.parse(line);
      if (entry.level === "error") {
        const key = `${entry.msg}: ${entry.error?.cause?.message ?? entry.error?.message ?? ""}`.slice(0, 120);
        errors[key] = (errors[key] ?? 0) + 1;
      }
    }
    report.worker_log = {
      lines: logLines.length,
      errors,
      circuit_state_changes: logLines.filter((l) => /circuit (open|closed)/.test(l)).length,
      lines_with_32plus_hex: logLines.filter((l) => /[0-9a-f]{32,}/i.test(l)).length,
      lines_with_stack_frames: logLines.filter((l) => /\\n\s+at /.test(l)).length,
    };

    console.log(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: `${cpus().length} cores (${cpus()[0]?.model.trim()}), local stack`,
          settings: {
            rate_limit: RATE_LIMIT,
            limiter_timeout_ms: LIMITER_TIMEOUT_MS,
            circuit_retry_ms: CIRCUIT_RETRY_MS,
            body_read_timeout_ms: BODY_READ_TIMEOUT_MS,
          },
          ...report,
          total_seconds: Math.round((Date.now() - started) / 1000),
        },
        null,
        2,
      ),
    );
  } finally {
    signalAll(stopped, "SIGCONT");
    await pool.end();
    await worker?.dispose();
    await faultsWorker?.dispose();
    await Promise.all(fakes.map((f) => f.stop()));
    await stack.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

// The script's own time limit: whatever hangs, it ends.
const limit = setTimeout(() => {
  console.error("chaos: over 12 minutes, giving up");
  process.exit(1);
}, 12 * 60_000);
limit.unref();
await main();
