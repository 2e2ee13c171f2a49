/**
 * Database round trips and throughput: `npm run bench`. Runs the real Worker bundle in workerd against
 * the local stack twice, once as is and once with every database request and answer held for a fixed
 * time (BENCH_DB_DELAY_MS each way, so one round trip costs twice that), and times each endpoint.
 * The median added latency divided by the round-trip cost is the number of database round trips a
 * request makes: what every caller far from the database pays for.
 * On the undelayed stack it also measures the throughput of GET /clients/{id} against a minimal
 * Hono Worker doing the same SELECT over the same driver (test/bench/minimal), side by side, with the
 * CPU time workerd spends per request for each (which, unlike the rate, does not depend on the load
 * other processes put on the machine).
 *   BENCH_DB_DELAY_MS (default 25), BENCH_REDIS_DELAY_MS (added to each Redis answer; default 2 x
 *   BENCH_DB_DELAY_MS, so a limiter call costs what a database round trip does and shows when it is
 *   not overlapped), BENCH_RUNS (default 17),
 *   BENCH_ONLY (substrings of scenario names to run, comma-separated, e.g. "orders" or "MCP,GET /clients/{id}"; "revocation" and
 *   "batch vs singles" name those parts, and the throughput and CPU parts run with BENCH_ONLY only if one part is
 *   "throughput"), BENCH_SECONDS (throughput time per
 *   worker and concurrency, default 8, taken in 4 rounds that alternate the Workers)
 * Last, the Workers' own CPU per request with the database's answers replayed in the isolate
 * (test/bench/replay): the API's overhead over the minimal Worker without the network in the way.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { revokeToken } from "../../src/http/tokens";
import { createToken } from "../../tools/ops/commands";
import { workerdCpuNs } from "../../tools/ops/workerd-cpu";
import { buildWorker, type RunningWorker, startWorker } from "../support/worker";
import { benchCompany, buildCpuBundles, cpuLines } from "./cpu";
import { benchScenarios } from "./scenarios";

const dbDelay = Number(process.env.BENCH_DB_DELAY_MS ?? 25);
const redisDelay = Number(process.env.BENCH_REDIS_DELAY_MS ?? 2 * dbDelay);
const runs = Number(process.env.BENCH_RUNS ?? 17);
/** Requests per scenario: the first two warm the isolate. */
const requests = runs + 2;
const throughputSeconds = Number(process.env.BENCH_SECONDS ?? 8);
const CONCURRENCIES = [8, 32];
const ROUNDS = 4;

/** BENCH_ONLY's parts, lowercased: what to run (undefined: everything). */
const only = process.env.BENCH_ONLY?.toLowerCase().split(",");
/** Whether BENCH_ONLY asks for the part named `name` (a scenario's name, or "batch vs singles", "revocation", "throughput"). */
const wanted = (name: string, exact = false) =>
  !only || only.some((part) => (exact ? name.toLowerCase() === part : name.toLowerCase().includes(part)));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const tmp = mkdtempSync(path.join(tmpdir(), "crm-bench-"));
chmodSync(tmp, 0o755);
/** A bundle built as `wrangler deploy` builds it, into a folder of its own (config, entry: see buildWorker). */
const bundle = (name: string, config?: string, entry?: string) => {
  mkdirSync(path.join(tmp, name));
  return buildWorker(path.join(tmp, name), config, entry && path.join(import.meta.dirname, entry));
};
// The API's Worker and the replay Worker of `bench:cpu`, and its floor's (in tmp/worker, tmp/replay, …).
const cpuBundles = buildCpuBundles(tmp);
const script = cpuBundles.worker;
const minimalConfig = path.join(import.meta.dirname, "minimal/wrangler.toml");
const minimalScript = bundle("minimal", minimalConfig);
const CPU_RUNS = Number(process.env.BENCH_CPU_RUNS ?? 5);
const logNotWrittenScript = bundle("log-not-written", undefined, "log-not-written/worker.ts");
/** Replayed CPU: rounds alternating the Workers, each this many requests inside one request to the replay Worker. */
const REPLAY_ROUNDS = Number(process.env.BENCH_REPLAY_ROUNDS ?? 7);
const REPLAY_REQUESTS = Number(process.env.BENCH_REPLAY_REQUESTS ?? 1000);

/** The Workers measured side by side: requests per second and workerd CPU time per request (ms) of each. */
const THROUGHPUT_WORKERS = ["minimal", "api", "apiMemoryLimiter", "apiLogNotWritten", "apiBehindAssetRouter"] as const;
type ThroughputWorker = (typeof THROUGHPUT_WORKERS)[number];
interface Throughput {
  concurrency: number;
  /**
   * minimal: the baseline. api: the API's Worker (Upstash limiter through the local Upstash server).
   * apiMemoryLimiter: the same with the in-memory limiter (what the Upstash call costs locally).
   * apiLogNotWritten: that, with the request's log line not written (test/bench/log-not-written): the
   * API without the two costs that are local I/O on this machine.
   * apiBehindAssetRouter: the API with its static assets, as `npm run dev` runs it: Miniflare then puts
   * Cloudflare's asset router in front of the Worker, in the same workerd (on Cloudflare it runs on
   * Cloudflare's side, not in the Worker's isolate).
   */
  rps: Record<ThroughputWorker, number>;
  cpu: Record<ThroughputWorker, number>;
  /** Each round's ratio to the minimal Worker's rate in the same round: how far one round can move. */
  roundRatios: Record<ThroughputWorker, number[]>;
}

/**
 * Requests per second with `concurrency` requests always in flight for `ms` (load from a thread of
 * its own), and the CPU time workerd spent per request meanwhile (every workerd this process runs:
 * the others are idle). The CPU time does not depend on how busy the machine is; the rate does.
 */
async function rps(urls: string[], headers: Record<string, string>[], concurrency: number, ms: number) {
  const cpuBefore = workerdCpuNs();
  const thread = new Worker(path.join(import.meta.dirname, "load.mjs"), { workerData: { urls, headers, concurrency, ms } });
  const result = await new Promise<{ rps: number; statuses: Record<string, number> }>((resolve, reject) => {
    thread.once("message", resolve);
    thread.once("error", reject);
  });
  await thread.terminate();
  const cpuNs = workerdCpuNs() - cpuBefore;
  const failed = Object.entries(result.statuses).filter(([status]) => status !== "200");
  if (failed.length) throw new Error(`throughput: answers other than 200: ${JSON.stringify(Object.fromEntries(failed))}`);
  const requests = Object.values(result.statuses).reduce((a, b) => a + b, 0);
  return { rps: result.rps, cpuNs, requests };
}

/** Rounds of the batch-against-singles comparison, alternating the two. */
const BATCH_ROUNDS = 5;
const BATCH_SIZE = 100;

/**
 * 100 clients created by 100 POST /clients one after another, against the same 100 in one POST
 * /clients/batch, in alternating rounds (a token of its own per round: 100 requests a minute per key
 * stay far from the limit): the medians of the two, and their ratio.
 */
async function timeBatchVsSingles(ctx: { db: Parameters<typeof createToken>[0]; companyId: number; api: string }) {
  const send = async (token: string, path: string, body: unknown) => {
    const res = await fetch(`${ctx.api}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
    return text;
  };
  const singles: number[] = [];
  const batches: number[] = [];
  for (let round = 0; round <= BATCH_ROUNDS; round++) {
    const { token } = await createToken(ctx.db, { companyId: ctx.companyId });
    await send(token, "/clients", { company_name: "Warm-up" }); // the token checked, the isolate warm
    let started = performance.now();
    for (let i = 0; i < BATCH_SIZE; i++) await send(token, "/clients", { company_name: `Single ${round}.${i}` });
    const single = performance.now() - started;
    const items = Array.from({ length: BATCH_SIZE }, (_, i) => ({ method: "create", data: { company_name: `Batched ${round}.${i}` } }));
    started = performance.now();
    const answer = JSON.parse(await send(token, "/clients/batch", { items })) as { data: { status: number }[] };
    const batched = performance.now() - started;
    if (answer.data.some((i) => i.status !== 200)) throw new Error("batch vs singles: an item was not written");
    // The first round warms both paths.
    if (round > 0) {
      singles.push(single);
      batches.push(batched);
    }
  }
  return { singles: median(singles), batch: median(batches) };
}

const REVOCATION_ROUNDS = 7;

/**
 * A revocation across two isolates that both have the token cached: the time from the revoke's answer
 * (the token service, as the settings page and the CLI call it) to the first 401 on each isolate, a request
 * sent to each at once. Medians of REVOCATION_ROUNDS, a token of its own per round.
 */
async function timeRevocation(
  ctx: { db: Parameters<typeof createToken>[0]; companyId: number; redis: Record<string, string> },
  urls: string[],
) {
  const get = (url: string, token: string) =>
    fetch(`${url}/api/v1/clients?limit=1`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => {
      await res.arrayBuffer();
      return res.status;
    });
  const revokes: number[] = [];
  const firstRefusals: number[][] = urls.map(() => []);
  for (let round = 0; round <= REVOCATION_ROUNDS; round++) {
    const { token, token_id } = await createToken(ctx.db, { companyId: ctx.companyId });
    // Checked by both isolates, then answered from their caches.
    for (const url of urls)
      for (let i = 0; i < 2; i++) if ((await get(url, token)) !== 200) throw new Error("revocation: token not accepted");
    const started = performance.now();
    const revoked = await revokeToken(ctx.db, ctx.redis, { tokenId: token_id, actor: { type: "system" } });
    const answered = performance.now();
    if (!revoked?.propagated) throw new Error("revocation: the marker did not reach Redis");
    const after = await Promise.all(
      urls.map(async (url) => {
        const status = await get(url, token);
        if (status !== 401) throw new Error(`revocation: the next request answered ${status}, not 401`);
        return performance.now() - answered;
      }),
    );
    if (round === 0) continue; // warms the revoke's Redis client
    revokes.push(answered - started);
    for (const [i, ms] of after.entries()) firstRefusals[i].push(ms);
  }
  return { revoke: median(revokes), firstRefusal: firstRefusals.map(median) };
}

async function measure(delays: { db: number; redis: number }, withThroughput: boolean) {
  const dir = path.join(tmp, `stack-${delays.db}`);
  const company = await benchCompany(dir, delays);
  const { stack, db, pool, companyId: company_id, load, ids } = company;
  const disposers: (() => Promise<void>)[] = [];
  const workers: RunningWorker[] = [];
  try {
    // Without Miniflare's local asset router in front (see Throughput): the Worker alone, as the minimal one runs.
    const worker = await startWorker({ script, bindings: stack.vars, logFile: path.join(tmp, `worker-${delays.db}.log`), assets: false });
    workers.push(worker);
    const ctx = {
      db,
      companyId: company_id,
      load,
      onDispose: (fn: () => Promise<void>) => void disposers.push(fn),
      api: `${worker.url}/api/v1`,
      requests,
    };
    const results: Record<string, number> = {};
    for (const scenario of benchScenarios.filter((s) => wanted(s.name))) {
      const request = await scenario.prepare({ ...ctx, ids });
      // A token per scenario, so the 300 requests per minute per key never refuse one (the warm-up requests check it).
      const { token } = await createToken(db, { companyId: company_id });
      const times: number[] = [];
      for (let i = 0; i < requests; i++) {
        // A scenario may ask for a token of its own per request (not yet checked by this isolate, or unknown).
        const bearer = request.token ? await request.token() : token;
        const target = typeof request.path === "string" ? request.path : await request.path();
        const body = typeof request.body === "function" ? request.body() : request.body;
        const started = performance.now();
        const res = await fetch(`${worker.url}/api/v1${target}`, {
          method: request.method ?? "GET",
          headers: {
            authorization: `Bearer ${bearer}`,
            ...(body ? { "content-type": "application/json" } : {}),
            ...request.headers,
          },
          body: body ? JSON.stringify(body) : undefined,
        });
        const answer = await res.text();
        if (res.status !== (request.status ?? 200)) throw new Error(`${scenario.name}: ${res.status}`);
        request.check?.(answer);
        if (i >= 2) times.push(performance.now() - started); // the first two warm the isolate
      }
      results[scenario.name] = median(times);
    }
    const batchVsSingles = wanted("batch vs singles") ? await timeBatchVsSingles(ctx) : undefined;
    let revocation: Awaited<ReturnType<typeof timeRevocation>> | undefined;
    if (wanted("revocation")) {
      // A second isolate beside the first, both caching tokens as production does.
      const second = await startWorker({
        script,
        bindings: stack.vars,
        logFile: path.join(tmp, `worker-b-${delays.db}.log`),
        assets: false,
      });
      workers.push(second);
      revocation = await timeRevocation({ db, companyId: company_id, redis: stack.vars }, [worker.url, second.url]);
    }

    const throughput: Throughput[] = [];
    let cpu: string[] = [];
    if (withThroughput) {
      // Fresh Workers only: the scenarios' writes left queue messages (accounting, webhooks) whose
      // consumers would spend workerd CPU meanwhile.
      await worker.dispose();
      workers.splice(workers.indexOf(worker), 1);
      const api = await startWorker({ script, bindings: stack.vars, logFile: path.join(tmp, "worker-throughput.log"), assets: false });
      workers.push(api);
      const minimal = await startWorker({
        script: minimalScript,
        config: minimalConfig,
        bindings: stack.vars,
        logFile: path.join(tmp, "minimal.log"),
      });
      workers.push(minimal);
      const memoryLimited = await startWorker({
        script,
        bindings: { ...stack.vars, RATE_LIMIT_BACKEND: "memory" },
        logFile: path.join(tmp, "worker-memory-limiter.log"),
        assets: false,
      });
      workers.push(memoryLimited);
      const logNotWritten = await startWorker({
        script: logNotWrittenScript,
        bindings: { ...stack.vars, RATE_LIMIT_BACKEND: "memory" },
        logFile: path.join(tmp, "worker-log-not-written.log"),
        assets: false,
      });
      workers.push(logNotWritten);
      const withAssets = await startWorker({ script, bindings: stack.vars, logFile: path.join(tmp, "worker-with-assets.log") });
      workers.push(withAssets);
      // Tokens of its own for each API Worker (the limited ones share Redis), enough that a key stays far
      // from 300 requests per minute: near the limit, reservations shrink and the limiter asks Redis more often.
      const tokenSet = async () =>
        (await Promise.all(Array.from({ length: 64 }, async () => (await createToken(db, { companyId: company_id })).token))).map((t) => ({
          authorization: `Bearer ${t}`,
        }));
      const apiUrl = `${api.url}/api/v1/clients/${ids.northside}`;
      const minimalUrl = `${minimal.url}/clients/${ids.northside}?company=${company_id}`;
      const targets: Record<ThroughputWorker, { url: string; headers: Record<string, string>[] }> = {
        minimal: { url: minimalUrl, headers: [{}] },
        api: { url: apiUrl, headers: await tokenSet() },
        apiMemoryLimiter: { url: `${memoryLimited.url}/api/v1/clients/${ids.northside}`, headers: await tokenSet() },
        apiLogNotWritten: { url: `${logNotWritten.url}/api/v1/clients/${ids.northside}`, headers: await tokenSet() },
        apiBehindAssetRouter: { url: `${withAssets.url}/api/v1/clients/${ids.northside}`, headers: await tokenSet() },
      };
      // The scenarios' writes done with now: vacuumed and flushed, so neither autovacuum nor a
      // checkpoint takes the machine's CPU during some rounds and not others.
      await pool.query("VACUUM ANALYZE");
      await pool.query("CHECKPOINT");
      // Warm up: every token checked, isolates compiled.
      for (const name of THROUGHPUT_WORKERS) await rps([targets[name].url], targets[name].headers, 8, 1000);
      for (const concurrency of CONCURRENCIES) {
        const sums = Object.fromEntries(THROUGHPUT_WORKERS.map((name) => [name, { rps: 0, cpuNs: 0, requests: 0 }]));
        const roundRatios = Object.fromEntries(THROUGHPUT_WORKERS.map((name) => [name, [] as number[]])) as Throughput["roundRatios"];
        const slice = (throughputSeconds * 1000) / ROUNDS;
        for (let round = 0; round < ROUNDS; round++) {
          const rates = {} as Record<ThroughputWorker, number>;
          for (const name of THROUGHPUT_WORKERS) {
            const r = await rps([targets[name].url], targets[name].headers, concurrency, slice);
            sums[name].rps += r.rps;
            sums[name].cpuNs += r.cpuNs;
            sums[name].requests += r.requests;
            rates[name] = r.rps;
          }
          for (const name of THROUGHPUT_WORKERS) roundRatios[name].push(rates[name] / rates.minimal);
        }
        const each = (f: (s: (typeof sums)[string]) => number) =>
          Object.fromEntries(THROUGHPUT_WORKERS.map((name) => [name, f(sums[name])])) as Record<ThroughputWorker, number>;
        throughput.push({ concurrency, rps: each((s) => s.rps / ROUNDS), cpu: each((s) => s.cpuNs / s.requests / 1e6), roundRatios });
      }
      for (const w of workers.splice(0)) await w.dispose();
      // The Workers' CPU: the cold path (fresh isolates), then warm requests with the answers replayed (cpu.ts).
      cpu = await cpuLines(cpuBundles, company, {
        runs: CPU_RUNS,
        rounds: REPLAY_ROUNDS,
        n: REPLAY_REQUESTS,
        logFile: path.join(tmp, "replay.log"),
      });
    }
    return { results, throughput, cpu, batchVsSingles, revocation };
  } finally {
    for (const dispose of disposers) await dispose();
    for (const w of workers) await w.dispose();
    await company.stop();
  }
}

try {
  // The throughput and the Workers' CPU (long): with BENCH_ONLY, only when one of its parts is "throughput".
  const base = await measure({ db: 0, redis: 0 }, wanted("throughput", true));
  const slow = await measure({ db: dbDelay, redis: redisDelay }, false);
  const rtt = 2 * dbDelay;
  console.log(
    `round trip = ${rtt} ms (database: 2 x ${dbDelay} ms; Redis: answer +${redisDelay} ms), ${runs} runs, medians; warm isolate unless the scenario says otherwise`,
  );
  console.log(["scenario".padEnd(58), "no delay", "delayed", "  added", "   round trips", "goal"].join("  "));
  for (const scenario of benchScenarios) {
    const name = scenario.name;
    if (base.results[name] === undefined) continue;
    const added = slow.results[name] - base.results[name];
    console.log(
      [
        name.padEnd(58),
        `${base.results[name].toFixed(1)} ms`.padStart(8),
        `${slow.results[name].toFixed(1)} ms`.padStart(7),
        `${added.toFixed(1)} ms`.padStart(7),
        (added / rtt).toFixed(1).padStart(14),
        scenario.goal === undefined ? "" : `≤ ${scenario.goal}`,
      ].join("  "),
    );
  }
  for (const [label, run] of [
    ["no delay", base],
    ["delayed", slow],
  ] as const) {
    const b = run.batchVsSingles;
    if (!b) continue;
    console.log(
      `${BATCH_SIZE} client creates, ${label} (medians of ${BATCH_ROUNDS} alternating rounds): ${BATCH_SIZE} × POST /clients ` +
        `${b.singles.toFixed(0)} ms, one POST /clients/batch ${b.batch.toFixed(1)} ms: ${(b.singles / b.batch).toFixed(1)}× faster (goal ≥ 20×)`,
    );
  }
  for (const [label, run] of [
    ["no delay", base],
    ["delayed", slow],
  ] as const) {
    const r = run.revocation;
    if (!r) continue;
    console.log(
      `revocation, ${label} (medians of ${REVOCATION_ROUNDS}): the revoke ${r.revoke.toFixed(1)} ms; from its answer to the first 401, ` +
        `isolate A ${r.firstRefusal[0].toFixed(1)} ms, isolate B ${r.firstRefusal[1].toFixed(1)} ms (the next request on each)`,
    );
  }
  const labels: Record<ThroughputWorker, string> = {
    minimal: "minimal Worker",
    api: "API",
    apiMemoryLimiter: "API, in-memory limiter",
    apiLogNotWritten: "API, in-memory limiter, log not written",
    apiBehindAssetRouter: "API behind the local asset router",
  };
  for (const t of base.throughput) {
    console.log(`GET /clients/{id} throughput, concurrency ${t.concurrency} (ratio to the minimal Worker; goal for the API ≥ 0.80):`);
    for (const name of THROUGHPUT_WORKERS) {
      const rounds = t.roundRatios[name];
      const spread = name === "minimal" ? "" : `  (rounds ${Math.min(...rounds).toFixed(2)}–${Math.max(...rounds).toFixed(2)})`;
      console.log(
        `  ${labels[name].padEnd(40)} ${t.rps[name].toFixed(0).padStart(5)} req/s  ratio ${(t.rps[name] / t.rps.minimal).toFixed(2)}  ` +
          `workerd CPU ${t.cpu[name].toFixed(2)} ms/request${spread}`,
      );
    }
  }
  for (const line of base.cpu) console.log(line);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(0);
