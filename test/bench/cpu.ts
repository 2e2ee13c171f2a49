/**
 * The Worker's CPU on the cold path and on warm requests, against the goals (docs/bundle.md#cpu-goals):
 * `npm run bench:cpu` (which `.ci/run` runs on every push); `npm run bench` prints the same after its
 * round trips.
 *
 * - Start-up: a fresh isolate importing the bundle.
 * - A fresh isolate's first request to each resource, start-up included: one probe per tag of the
 *   OpenAPI document (the tags come from src/resources.ts, so a new resource is measured without a
 *   change here) and one for the MCP endpoint (`tools/list`). A probe is the tag's first GET operation,
 *   else its first operation without a body, with the parameters' examples; the id of a row that does
 *   not exist answers 404 after the full path (token lookup, limiter, validation, the route's query).
 * - The floor, in the same rounds: a Worker of the API's dependencies alone (hono, the Neon driver,
 *   drizzle: test/bench/minimal/floor.ts), its start-up and its first `GET /clients/{id}` (one SELECT),
 *   and that first request with one call of the API's Upstash limiter (floor-limiter.ts); and the MCP
 *   SDK alone answering its first `tools/list` (floor-mcp.ts).
 * - Each is the median over fresh isolates, beside a one-line Worker's first request measured in the
 *   same run and subtracted (what workerd spends on any request and isolate).
 * - Warm: each Worker's own CPU per request with the database's answers replayed in the isolate
 *   (test/bench/replay), the API against the minimal Worker (test/bench/minimal), per request of
 *   REPLAYED_REQUESTS; the median of alternating rounds. Two variants of the API in the same rounds
 *   split its extra CPU: the Upstash limiter's call, writing the log line, and the rest.
 * The database is the local stack (embedded PostgreSQL, the Neon stand-in, redis-server behind the
 * Upstash-protocol server), loaded with the demo seed.
 *   BENCH_CPU_RUNS (fresh isolates per probe, default 5), BENCH_REPLAY_ROUNDS (default 7),
 *   BENCH_REPLAY_REQUESTS (per round, default 1000), BENCH_REFUSED_REQUESTS (per round, default 100)
 * - Refused: requests answered before their work (REFUSED_REQUESTS: 401 without a token, a path at the
 *   8 KiB limit, a 60 KB path's 414, an MCP tool call refused before its request with an empty argument,
 *   the same in a 300 KB message, a 300 KB and a 1 MB argument), the API's CPU per request in the same
 *   replay Worker, beside the minimal Worker's replayed GET /clients/{id}, against GOALS.refusedMs; each
 *   MCP message also through the MCP SDK alone, against GOALS.mcpSizeRatio. `npm run bench:cpu --
 *   refused` measures only these.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../src/db/schema";
import { startStack } from "../../tools/local/stack";
import { createCompany, createToken, importFile } from "../../tools/ops/commands";
import { runMigrations } from "../../tools/ops/migrate";
import { openapiDocument } from "../../tools/ops/openapi";
import { type Bundle, firstRequest, type HarnessRequest, median, readBundle, workerdCpuNs } from "../../tools/ops/workerd-cpu";
import { buildWorker, startWorker } from "../support/worker";

export const GOALS = { startupMs: 20, firstRequestMs: 30, replayRatio: 1.35, refusedMs: 1, mcpSizeRatio: 1 };

/** The warm requests measured with replayed answers (names as test/bench/replay/worker.ts knows them). */
export const REPLAYED_REQUESTS = {
  getClient: "GET /clients/{id}",
  listClients: "GET /clients (a page)",
  createClient: "POST /clients",
  getOrder: "GET /orders/{id}",
} as const;
export type ReplayedRequest = keyof typeof REPLAYED_REQUESTS;
/**
 * Requests refused before their work, measured the same way (names as test/bench/replay/worker.ts knows
 * them), with the status each answers: the API's CPU for each, against the minimal Worker's
 * GET /clients/{id} in the same rounds (the floor). The plain requests' goal is GOALS.refusedMs. An MCP
 * call (`mcp`) is also measured through the MCP SDK alone answering the same message (its floor):
 * what a large message adds to the call (beyond the empty-id call, `sizeOf`) is held to
 * GOALS.mcpSizeRatio × what the same message adds to the SDK alone, since reading and parsing it
 * costs any MCP server more than 1 ms on this machine.
 */
export const REFUSED_REQUESTS = {
  unauthenticated: { name: "GET /clients/1 without a token", status: 401 },
  path8k: { name: "an 8 KiB path (the limit) without a token", status: 401 },
  path60k: { name: "a 60 KB path", status: 414 },
  mcpEmptyArgument: { name: "MCP get_client, id empty (tool error)", status: 200, mcp: true },
  mcpEmptyArgument300kMessage: { name: "the same, 300 KB of _meta beside it", status: 200, mcp: true, sizeOf: "mcpEmptyArgument" },
  mcpArgument300k: { name: "MCP get_client, a 300 KB id (tool error, 414)", status: 200, mcp: true, sizeOf: "mcpEmptyArgument" },
  mcpArgument1m: { name: "MCP get_client, a 1 MB id (tool error, 414)", status: 200, mcp: true, sizeOf: "mcpEmptyArgument" },
} as const;
export type RefusedRequest = keyof typeof REFUSED_REQUESTS;
/**
 * The Workers a replay round runs (test/bench/replay/worker.ts): the baseline, the API, the API with the
 * in-memory limiter (api − this: the Upstash limiter's call), and that with its log line not written
 * (apiMemoryLimiter − this: writing the line; this ÷ minimal: the API's own work).
 */
export const REPLAY_WORKERS = ["minimal", "api", "apiMemoryLimiter", "apiLogNotWritten"] as const;
export type ReplayWorker = (typeof REPLAY_WORKERS)[number];

/** The bundles the CPU measurements run, built as `wrangler deploy` builds them. */
export function buildCpuBundles(dir: string) {
  const bundle = (name: string, config?: string, entry?: string) => {
    mkdirSync(path.join(dir, name), { recursive: true });
    return buildWorker(path.join(dir, name), config, entry && path.join(import.meta.dirname, entry));
  };
  return {
    worker: bundle("worker"),
    replay: bundle("replay", undefined, "replay/worker.ts"),
    floor: bundle("floor", undefined, "minimal/floor.ts"),
    floorLimiter: bundle("floor-limiter", undefined, "minimal/floor-limiter.ts"),
    floorMcp: bundle("floor-mcp", undefined, "minimal/floor-mcp.ts"),
  };
}
export type CpuBundles = ReturnType<typeof buildCpuBundles>;

/** A local stack loaded with the demo seed: the company, its ids and a token. */
export async function benchCompany(dir: string, delays: { db: number; redis: number } = { db: 0, redis: 0 }) {
  const stack = await startStack({ dataDir: path.join(dir, "pg"), redis: "required", proxyDelayMs: delays.db, redisDelayMs: delays.redis });
  const pool = new pg.Pool({ connectionString: stack.postgres!.url });
  // An idle connection the server ends is replaced on the next query, not an uncaught error that ends the
  // benchmark (seen once in CI: "terminating connection due to administrator command" on an idle client).
  pool.on("error", () => {});
  try {
    await runMigrations(stack.postgres!.url);
    const db = drizzle(pool, { schema });
    const { company_id: companyId } = await createCompany(db, { name: "Bench Co" });
    const load = async (data: unknown) => (await importFile(db, { companyId, data })).ids;
    const ids = await load(JSON.parse(readFileSync(path.join(import.meta.dirname, "../../tools/ops/demo-seed.json"), "utf8")));
    return {
      stack,
      pool,
      db,
      companyId,
      ids,
      load,
      stop: async () => {
        await pool.end();
        await stack.stop();
      },
    };
  } catch (e) {
    await pool.end();
    await stack.stop();
    throw e;
  }
}
export type BenchCompany = Awaited<ReturnType<typeof benchCompany>>;

/** A first request to measure: its name and the request the harness hands the Worker. */
export interface Probe {
  name: string;
  request: HarnessRequest;
}

type Doc = {
  tags: { name: string }[];
  paths: Record<string, Record<string, { tags?: string[]; security?: unknown[]; parameters?: any[]; requestBody?: unknown }>>;
};

/**
 * One probe per tag of the document (in the document's order, which is src/resources.ts's), and the
 * MCP endpoint's first `tools/list`.
 */
export function coldProbes(document: Doc, token: string): Probe[] {
  const operations = Object.entries(document.paths).flatMap(([p, item]) =>
    Object.entries(item).map(([method, op]) => ({ path: p, method, op })),
  );
  const probes: Probe[] = [];
  for (const { name: tag } of document.tags) {
    const tagged = operations.filter((o) => o.op.tags?.includes(tag));
    const chosen = tagged.find((o) => o.method === "get") ?? tagged.find((o) => !o.op.requestBody);
    if (!chosen) continue;
    const example = (p: any) => String(p.example ?? p.schema?.example ?? 1);
    const url = chosen.path.replace(/\{([^}]+)\}/g, (_, name) =>
      encodeURIComponent(example(chosen.op.parameters?.find((p: any) => p.in === "path" && p.name === name) ?? {})),
    );
    const query = new URLSearchParams(
      (chosen.op.parameters ?? []).filter((p: any) => p.in === "query" && p.required).map((p: any) => [p.name, example(p)]),
    ).toString();
    const headers: Record<string, string> = chosen.op.security?.length ? { authorization: `Bearer ${token}` } : {};
    probes.push({
      name: `${tag}: ${chosen.method.toUpperCase()} ${chosen.path}`,
      request: { path: `/api/v1${url}${query ? `?${query}` : ""}`, init: { method: chosen.method.toUpperCase(), headers } },
    });
  }
  probes.push({
    name: "MCP: tools/list",
    request: {
      path: "/api/v1/mcp",
      init: {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      },
    },
  });
  return probes;
}

/** One series of fresh isolates: each one's CPU (ms) and the last status answered. */
export interface ColdSeries {
  name: string;
  samples: number[];
  status: number;
}

export interface ColdPath {
  runs: number;
  /** The one-line Worker's first request (ms, median), subtracted from the others. */
  oneLineMs: number;
  startup: number[];
  probes: ColdSeries[];
  /**
   * The floor: the API's dependencies alone (test/bench/minimal/floor.ts), and with one limiter call;
   * the MCP SDK alone answering `tools/list` (floor-mcp.ts).
   */
  floor: { startup: number[]; request: ColdSeries; withLimiter: ColdSeries; mcp: ColdSeries };
}

/** A fresh isolate's first request (firstRequest), refused when it answers 5xx: a figure of a failing path measures nothing. */
export async function answeredFirstRequest(name: string, bundle: Bundle, bindings: Record<string, string>, request: HarnessRequest) {
  const answer = await firstRequest(bundle, bindings, request);
  if (answer.status >= 500) throw new Error(`${name}: answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  return answer;
}

/**
 * Start-up and each probe's first request, and the floor's, `runs` fresh isolates each, interleaved
 * round by round with the one-line Worker, so a burst of load elsewhere on the machine hits every
 * series alike.
 */
export async function coldPath(bundles: CpuBundles, company: BenchCompany, probes: Probe[], runs: number): Promise<ColdPath> {
  const vars = company.stack.vars;
  const pick = (...names: string[]) => Object.fromEntries(names.map((n) => [n, vars[n]]));
  const api = { bundle: readBundle(bundles.worker), bindings: vars };
  const floor = { bundle: readBundle(bundles.floor), bindings: pick("DATABASE_URL", "NEON_LOCAL_PROXY") };
  const floorLimiter = {
    bundle: readBundle(bundles.floorLimiter),
    bindings: pick("DATABASE_URL", "NEON_LOCAL_PROXY", "UPSTASH_REDIS_REST_URL", "UPSTASH_REDIS_REST_TOKEN"),
  };
  const floorMcp = { bundle: readBundle(bundles.floorMcp), bindings: {} };
  const mcpProbe = probes.find((p) => p.request.path.endsWith("/mcp"));
  // A client of the company, so the floor's SELECT finds its row.
  const floorRequest = { path: `/clients/${company.ids.northside}?company=${company.companyId}` };
  const series = (name: string) => ({ name, samples: [] as number[], status: 0 });
  const oneLine: number[] = [];
  const result: ColdPath = {
    runs,
    oneLineMs: 0,
    startup: [],
    probes: probes.map((p) => series(p.name)),
    floor: {
      startup: [],
      request: series("floor: GET /clients/{id}"),
      withLimiter: series("floor and limiter: GET /clients/{id}"),
      mcp: series("floor: the MCP SDK's tools/list"),
    },
  };
  const first = async (into: ColdSeries, worker: typeof api, request: HarnessRequest) => {
    const answer = await answeredFirstRequest(into.name, worker.bundle, worker.bindings, request);
    into.samples.push(answer.cpuMs);
    into.status = answer.status;
  };
  for (let round = 0; round < runs; round++) {
    oneLine.push((await firstRequest(null, {})).cpuMs);
    result.startup.push((await firstRequest(api.bundle, api.bindings)).cpuMs);
    for (const [i, probe] of probes.entries()) await first(result.probes[i], api, probe.request);
    result.floor.startup.push((await firstRequest(floor.bundle, floor.bindings)).cpuMs);
    await first(result.floor.request, floor, floorRequest);
    await first(result.floor.withLimiter, floorLimiter, floorRequest);
    if (mcpProbe) await first(result.floor.mcp, floorMcp, { ...mcpProbe.request, path: "/mcp" });
  }
  result.oneLineMs = median(oneLine);
  return result;
}

/**
 * µs of workerd CPU per request for each of REPLAY_WORKERS and `requests`, database answers replayed
 * (test/bench/replay/worker.ts); the median of `rounds` rounds alternating the Workers.
 */
export async function replayedCpu(
  script: string,
  company: BenchCompany,
  opts: { requests: readonly ReplayedRequest[]; rounds: number; n: number; logFile: string },
) {
  const worker = await startWorker({ script, bindings: company.stack.vars, logFile: opts.logFile, assets: false });
  try {
    // Fresh tokens for each request and Worker: each stays well below 300 requests per minute (the
    // in-memory limiters of the API's variants count in the same isolate, the Upstash one in Redis).
    const newTokens = () =>
      Promise.all(Array.from({ length: 128 }, async () => (await createToken(company.db, { companyId: company.companyId })).token));
    const ids = `company=${company.companyId}&client=${company.ids.northside}&order=${company.ids["ord-northside-tees"]}`;
    const run = async (which: ReplayWorker, request: ReplayedRequest, tokens: string[], n: number, replay: boolean) => {
      const url = `${worker.url}/?which=${which}&request=${request}&n=${n}&${ids}&replay=${replay ? 1 : 0}&tokens=${tokens.join(",")}`;
      const before = workerdCpuNs();
      const answer = (await (await fetch(url)).json()) as { statuses: Record<string, number>; missed: number };
      const us = (workerdCpuNs() - before) / n / 1000;
      if (Object.keys(answer.statuses).some((status) => status !== "200"))
        throw new Error(`replay ${which} ${request}: ${JSON.stringify(answer)}`);
      if (replay && answer.missed) throw new Error(`replay ${which} ${request}: ${answer.missed} statements were not in the recording`);
      return us;
    };
    const out = {} as Record<ReplayedRequest, Record<ReplayWorker, number>>;
    // All made before the first round: a pause between requests longer than the server's keep-alive
    // would leave the next fetch a closed connection.
    const tokenSets = await Promise.all(
      opts.requests.map(async () =>
        Object.fromEntries(await Promise.all(REPLAY_WORKERS.map(async (w) => [w, await newTokens()] as const))),
      ),
    );
    for (const [i, request] of opts.requests.entries()) {
      const tokens = tokenSets[i];
      // Record every answer (each token's lookup included), then warm the replayed path.
      for (const which of REPLAY_WORKERS) await run(which, request, tokens[which], tokens[which].length, false);
      for (const which of REPLAY_WORKERS) await run(which, request, tokens[which], Math.min(300, opts.n), true);
      const samples = Object.fromEntries(REPLAY_WORKERS.map((w) => [w, [] as number[]]));
      for (let round = 0; round < opts.rounds; round++)
        for (const which of REPLAY_WORKERS) samples[which].push(await run(which, request, tokens[which], opts.n, true));
      out[request] = Object.fromEntries(REPLAY_WORKERS.map((w) => [w, median(samples[w])])) as Record<ReplayWorker, number>;
    }
    return out;
  } finally {
    await worker.dispose();
  }
}

/**
 * µs of workerd CPU per request for each of REFUSED_REQUESTS through the API (its log line written, the
 * Upstash limiter's Worker as deployed) and for the minimal Worker's replayed GET /clients/{id}, the floor;
 * the median of `rounds` rounds alternating them, `n` requests each.
 */
export async function refusedCpu(script: string, company: BenchCompany, opts: { rounds: number; n: number; logFile: string }) {
  const worker = await startWorker({ script, bindings: company.stack.vars, logFile: opts.logFile, assets: false });
  try {
    const tokens = await Promise.all(
      Array.from({ length: 8 }, async () => (await createToken(company.db, { companyId: company.companyId })).token),
    );
    const ids = `company=${company.companyId}&client=${company.ids.northside}`;
    const run = async (which: "api" | "minimal" | "mcpFloor", request: RefusedRequest | "getClient", n: number, replay: boolean) => {
      const url = `${worker.url}/?which=${which}&request=${request}&n=${n}&${ids}&replay=${replay ? 1 : 0}&tokens=${tokens.join(",")}`;
      const before = workerdCpuNs();
      const answer = (await (await fetch(url)).json()) as { statuses: Record<string, number> };
      const us = (workerdCpuNs() - before) / n / 1000;
      const expected = request === "getClient" ? 200 : REFUSED_REQUESTS[request].status;
      if (Object.keys(answer.statuses).some((status) => status !== String(expected)))
        throw new Error(`refused ${which} ${request}: expected ${expected}, got ${JSON.stringify(answer)}`);
      return us;
    };
    const requests = Object.keys(REFUSED_REQUESTS) as RefusedRequest[];
    // Record the floor's answers and each token's lookup, then warm every path.
    await run("minimal", "getClient", 1, false);
    for (const request of requests) await run("api", request, tokens.length, false);
    await run("minimal", "getClient", opts.n, true);
    for (const request of requests) await run("api", request, opts.n, true);
    const mcp = requests.filter((r) => "mcp" in REFUSED_REQUESTS[r]);
    for (const request of mcp) await run("mcpFloor", request, opts.n, true);
    const floor: number[] = [];
    const samples = Object.fromEntries(requests.map((r) => [r, [] as number[]])) as Record<RefusedRequest, number[]>;
    const sdkSamples = Object.fromEntries(mcp.map((r) => [r, [] as number[]])) as Record<RefusedRequest, number[]>;
    for (let round = 0; round < opts.rounds; round++) {
      floor.push(await run("minimal", "getClient", opts.n, true));
      for (const request of requests) samples[request].push(await run("api", request, opts.n, true));
      for (const request of mcp) sdkSamples[request].push(await run("mcpFloor", request, opts.n, true));
    }
    const medians = (by: Record<string, number[]>) => Object.fromEntries(Object.entries(by).map(([r, xs]) => [r, median(xs)]));
    return {
      floor: median(floor),
      api: medians(samples) as Record<RefusedRequest, number>,
      /** The MCP SDK alone answering each MCP call's message. */
      sdk: medians(sdkSamples) as Partial<Record<RefusedRequest, number>>,
    };
  } finally {
    await worker.dispose();
  }
}

const verdict = (ok: boolean) => (ok ? "met" : "NOT MET");

/** The refused requests' lines: each one's CPU against the goal, and its ratio to the floor. */
export function refusedLines(r: Awaited<ReturnType<typeof refusedCpu>>, rounds: number, n: number): string[] {
  const ms = (us: number) => `${(us / 1000).toFixed(3)} ms`;
  const lines = [
    `Refused before their work: the API's CPU per request, database answers replayed (median of ${rounds} rounds of ${n}; goal ≤ ${GOALS.refusedMs} ms; for a large MCP message, what its size adds ≤ ${GOALS.mcpSizeRatio}× what it adds to the MCP SDK alone):`,
    `  ${"floor: the minimal Worker's GET /clients/{id}".padEnd(52)} ${ms(r.floor)}`,
  ];
  for (const [request, us] of Object.entries(r.api) as [RefusedRequest, number][]) {
    const refused: { name: string; status: number; sizeOf?: RefusedRequest } = REFUSED_REQUESTS[request];
    const sdk = r.sdk[request];
    const row = `  ${`${refused.name} (${refused.status})`.padEnd(52)} ${ms(us)}  ${(us / r.floor).toFixed(2)}× the floor`;
    const sdkLine = sdk === undefined ? [] : [`    ${"the MCP SDK alone, the same message".padEnd(50)} ${ms(sdk)}`];
    const base = refused.sizeOf;
    if (sdk === undefined || !base) {
      lines.push(`${row}  ${verdict(us / 1000 <= GOALS.refusedMs)}`, ...sdkLine);
      continue;
    }
    // What the message's size adds, to the call and to the SDK alone.
    const added = us - r.api[base];
    const sdkAdded = sdk - r.sdk[base]!;
    lines.push(
      row,
      ...sdkLine,
      `    ${"what the size adds: the call ÷ the SDK alone".padEnd(50)} ${ms(added)} ÷ ${ms(sdkAdded)} = ${(added / sdkAdded).toFixed(2)}  goal ≤ ${GOALS.mcpSizeRatio}: ${verdict(added / sdkAdded <= GOALS.mcpSizeRatio)}`,
    );
  }
  return lines;
}

/** The cold path's lines: start-up, then each probe, against the goals; then the floor. */
export function coldPathLines(c: ColdPath): string[] {
  const fmt = (ms: number) => ms.toFixed(1).padStart(5);
  const ms = (samples: number[]) => median(samples) - c.oneLineMs;
  const startup = ms(c.startup);
  const lines = [
    `Cold path: workerd CPU, median of ${c.runs} fresh isolates each, minus a one-line Worker's first request (${c.oneLineMs.toFixed(1)} ms, same run):`,
    `  ${"start-up (importing the bundle)".padEnd(58)} ${fmt(startup)} ms  goal ≤ ${GOALS.startupMs} ms: ${verdict(startup <= GOALS.startupMs)}`,
    `  first request of a fresh isolate, start-up included (goal ≤ ${GOALS.firstRequestMs} ms):`,
  ];
  for (const p of c.probes) {
    const first = ms(p.samples);
    lines.push(`    ${`${p.name} (${p.status})`.padEnd(56)} ${fmt(first)} ms  ${verdict(first <= GOALS.firstRequestMs)}`);
  }
  const { floor } = c;
  lines.push(
    "  floor: hono, the Neon driver and drizzle alone (test/bench/minimal/floor.ts; one SELECT, no token, limiter, validation, serialisation or log line):",
    `    ${"start-up".padEnd(56)} ${fmt(ms(floor.startup))} ms`,
    `    ${`first GET /clients/{id} (${floor.request.status}), start-up included`.padEnd(56)} ${fmt(ms(floor.request.samples))} ms`,
    `    ${`the same and one Upstash limiter call (${floor.withLimiter.status})`.padEnd(56)} ${fmt(ms(floor.withLimiter.samples))} ms`,
  );
  if (floor.mcp.samples.length)
    lines.push(
      `    ${`the MCP SDK alone, first tools/list (${floor.mcp.status}; floor-mcp.ts)`.padEnd(56)} ${fmt(ms(floor.mcp.samples))} ms`,
    );
  return lines;
}

/**
 * The warm replay's lines: per request, the minimal Worker, the API and their ratio against the goal;
 * then what the API's extra is made of: the Upstash limiter's call, writing the log line, and the API's
 * own work without them against the goal.
 */
export function replayLines(r: Awaited<ReturnType<typeof replayedCpu>>, rounds: number, n: number): string[] {
  const us = (x: number) => `${x.toFixed(0).padStart(4)} µs`;
  const ratioLine = (ratio: number) => `ratio ${ratio.toFixed(2)}  goal ≤ ${GOALS.replayRatio}: ${verdict(ratio <= GOALS.replayRatio)}`;
  const lines = [`Warm: Workers' own CPU per request, database answers replayed in the isolate (median of ${rounds} rounds of ${n}):`];
  for (const [request, by] of Object.entries(r) as [ReplayedRequest, Record<ReplayWorker, number>][]) {
    lines.push(
      `  ${REPLAYED_REQUESTS[request].padEnd(24)} minimal ${us(by.minimal)}  API ${us(by.api)}  ${ratioLine(by.api / by.minimal)}`,
      `    the Upstash limiter's call          ${us(by.api - by.apiMemoryLimiter)}  (API − API with the in-memory limiter)`,
      `    writing the log line                ${us(by.apiMemoryLimiter - by.apiLogNotWritten)}  (in-memory limiter − that, log line not written)`,
      `    the API without them                ${us(by.apiLogNotWritten)}  ${ratioLine(by.apiLogNotWritten / by.minimal)}`,
    );
  }
  return lines;
}

/** The cold path, then the warm replay, on a stack loaded with the demo seed: the lines printed. */
export async function cpuLines(
  bundles: CpuBundles,
  company: BenchCompany,
  opts: { runs: number; rounds: number; n: number; refusedN?: number; logFile: string; refusedOnly?: boolean },
): Promise<string[]> {
  const refusedN = opts.refusedN ?? 100;
  const refusedRows = async () =>
    refusedLines(
      await refusedCpu(bundles.replay, company, {
        rounds: opts.rounds,
        n: refusedN,
        logFile: opts.logFile.replace(/\.log$/, "-refused.log"),
      }),
      opts.rounds,
      refusedN,
    );
  if (opts.refusedOnly) return refusedRows();
  const { token } = await createToken(company.db, { companyId: company.companyId });
  const probes = coldProbes((await openapiDocument()) as unknown as Doc, token);
  const cold = await coldPath(bundles, company, probes, opts.runs);
  const warm = await replayedCpu(bundles.replay, company, {
    requests: Object.keys(REPLAYED_REQUESTS) as ReplayedRequest[],
    rounds: opts.rounds,
    n: opts.n,
    logFile: opts.logFile,
  });
  return [...coldPathLines(cold), ...replayLines(warm, opts.rounds, opts.n), ...(await refusedRows())];
}

/** The whole measurement on its own stack: cold path, then warm replay. */
export async function measureCpu(opts: { runs: number; rounds: number; n: number; refusedN?: number; refusedOnly?: boolean }) {
  const dir = mkdtempSync(path.join(tmpdir(), "crm-bench-cpu-"));
  // embedded PostgreSQL runs as another user, which must reach its data folder inside.
  chmodSync(dir, 0o755);
  try {
    const bundles = buildCpuBundles(dir);
    const company = await benchCompany(dir);
    try {
      return await cpuLines(bundles, company, { ...opts, logFile: path.join(dir, "replay.log") });
    } finally {
      await company.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const lines = await measureCpu({
    runs: env("BENCH_CPU_RUNS", 5),
    rounds: env("BENCH_REPLAY_ROUNDS", 7),
    n: env("BENCH_REPLAY_REQUESTS", 1000),
    refusedN: env("BENCH_REFUSED_REQUESTS", 100),
    // `npm run bench:cpu -- refused`: the refused requests' rows only.
    refusedOnly: process.argv[2] === "refused",
  });
  for (const line of lines) console.log(line);
  process.exit(0);
}
