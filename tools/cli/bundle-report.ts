/**
 * What the Worker bundle costs: `npm run bundle:report -- dist/local [--runs=N] [--top]`, on the output
 * of `wrangler deploy --dry-run --outdir dist/local --metafile dist/local/meta.json`.
 *
 * Start-up CPU, measured as `wrangler check startup` sets it up, but counted differently: a fresh
 * workerd (Miniflare) whose first request imports the bundle; the cost is the CPU time the kernel
 * charged to workerd's threads for that request (/proc schedstat, so Linux only), minus the same for a
 * one-line Worker. Median over fresh isolates. Kernel CPU time leaves out time spent waiting for a
 * CPU, so a busy machine inflates it far less than the profiler's wall-clock samples; this machine's
 * CPU is not Cloudflare's, so compare runs on one machine, not hosts. It also reports a cold and a
 * warm request (404, no database), so start-up work moved into the first request still shows.
 * `--top` adds where start-up spends its time (V8 CPU profiles mapped through the source map) and
 * the bundle's minified bytes per package.
 *
 * With the metafile it also checks what went in, and exits 1 otherwise: nothing from tools/ or test/,
 * each wrangler.toml `[alias]` stand-in in place of its module, imported only by the package it was
 * meant for, and every `z.<name>` our bundled code reads at run time present in zod's namespace stand-in.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";
import { transformSync } from "esbuild";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import WebSocket from "ws";
import * as zodNames from "../../src/bundle-stand-ins/zod-names";

const root = path.resolve(import.meta.dirname, "../..");

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The harness Worker. `/import` imports the bundle (its start-up, as `wrangler check startup` does);
 * `/request` also imports it if not yet done, then hands it one request for an unknown path (404:
 * the request middleware and router, no database), so a first and a second `/request` show a cold
 * and a warm request, start-up work deferred into the first request included.
 */
const WRAPPER = `let worker;
export default {
  async fetch(req, env, ctx) {
    worker ??= (await import("./index.js")).default;
    if (new URL(req.url).pathname === "/request") await (await worker.fetch(new Request("http://localhost/startup-probe"), env, ctx)).arrayBuffer();
    return new Response("ok");
  },
};`;
const TRIVIAL = `export default { fetch() { return new Response("ok"); } };`;

/**
 * wrangler.toml's compatibility settings; the Worker's log lines (stdout) are dropped, its errors kept.
 * A placeholder DATABASE_URL passes the config check (the 404 probe never connects).
 */
function runtimeOptions() {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, "wrangler.toml"));
  return {
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    bindings: { DATABASE_URL: "postgresql://startup-probe@127.0.0.1:9/never-connected" },
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      stdout.resume();
      stderr.on("data", (chunk) => process.stderr.write(chunk));
    },
  };
}

/**
 * CPU time (ns) used so far by every thread of the workerd processes this process started: what the
 * kernel counted on a CPU, so time spent waiting for one on a busy machine is not in it.
 */
export function workerdCpuNs(): number {
  let ns = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const [comm, rest] = [stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), stat.slice(stat.lastIndexOf(")") + 2)];
    if (comm !== "workerd" || Number(rest.split(" ")[1]) !== process.pid) continue;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {}
    }
  }
  return ns;
}

/** One fresh workerd; the CPU time (ms) workerd spent answering each of `paths` in turn. */
async function cpuOnce(bundle: string | null, paths: string[]): Promise<number[]> {
  const mf = new Miniflare({ name: "profiler", modulesRoot: "/", modules: modulesFor(bundle), ...runtimeOptions() });
  try {
    await mf.ready;
    const spent: number[] = [];
    for (const p of paths) {
      const before = workerdCpuNs();
      const res = await mf.dispatchFetch(`http://localhost${p}`, { signal: AbortSignal.timeout(60_000) });
      if ((await res.text()) !== "ok") throw new Error(`${p} answered ${res.status}`);
      spent.push((workerdCpuNs() - before) / 1e6);
    }
    return spent;
  } finally {
    await mf.dispose();
  }
}

function modulesFor(bundle: string | null) {
  const modules = [{ type: "ESModule" as const, path: "/profiler-entry.js", contents: bundle === null ? TRIVIAL : WRAPPER }];
  if (bundle !== null) modules.push({ type: "ESModule", path: "/index.js", contents: bundle });
  return modules;
}

/** One fresh workerd, one profiled first request (the start-up); resolves to the CPU profile. */
async function profileOnce(bundle: string): Promise<CpuProfile> {
  const mf = new Miniflare({ name: "profiler", modulesRoot: "/", modules: modulesFor(bundle), inspectorPort: 0, ...runtimeOptions() });
  try {
    await mf.ready;
    const ws = new WebSocket(new URL("/core:user:profiler", await mf.getInspectorURL()).href);
    const deadline = AbortSignal.timeout(60_000);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve).once("error", reject);
      deadline.addEventListener("abort", () => reject(new Error("inspector did not open within 60 s")));
    });
    let next = 0;
    const pending = new Map<number, (result: unknown) => void>();
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data));
      pending.get(msg.id)?.(msg.result);
    });
    const send = (method: string, params: object = {}) =>
      new Promise<unknown>((resolve, reject) => {
        const id = ++next;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
        deadline.addEventListener("abort", () => reject(new Error(`${method}: no answer within 60 s`)));
      });
    await send("Profiler.enable");
    await send("Profiler.setSamplingInterval", { interval: 100 });
    await send("Profiler.start");
    const res = await mf.dispatchFetch("http://localhost/");
    if ((await res.text()) !== "ok") throw new Error(`start-up request answered ${res.status}`);
    const { profile } = (await send("Profiler.stop")) as { profile: CpuProfile };
    ws.close();
    return profile;
  } finally {
    await mf.dispose();
  }
}

/**
 * A source path as its npm package, or as one of our files. drizzle-orm's own source maps drop the
 * package name (node_modules/src/pg-core/...).
 */
function packageOf(source: string): string {
  const pkg = source.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (pkg) return pkg === "src" ? "drizzle-orm" : pkg;
  return source.replace(/^(\.\.\/)+/, "").replace(/^.*?\/(src\/)/, "$1");
}

/** Self time per npm package or file of ours (via the bundle's source map), ms. */
function bySource(profile: CpuProfile, map: TraceMap): Map<string, number> {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)?.callFrame;
    if (!frame || frame.functionName === "(idle)") return;
    // Frames without a URL are V8's own: (garbage collector), (program) = compiling, workerd getters.
    let key = frame.url || frame.functionName || "(anonymous)";
    if (/(^|\/)index\.js$/.test(frame.url)) {
      // The bundle's top level holds the bodies of every module esbuild inlined.
      const pos = frame.lineNumber >= 0 && originalPositionFor(map, { line: frame.lineNumber + 1, column: frame.columnNumber });
      key = pos ? (pos.source ? packageOf(pos.source) : "(bundle, unmapped)") : "(bundle top level: module bodies)";
    }
    out.set(key, (out.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Medians over fresh isolates (ms of workerd CPU): start-up (importing the bundle, minus the same
 * harness around a one-line Worker), a cold request (start-up plus the first request) and a warm one.
 */
export async function measureStartup(bundlePath: string, runs = 5) {
  const bundle = readFileSync(bundlePath, "utf8");
  const startup: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  const baseline: number[] = [];
  // Interleaved, so a burst of load elsewhere on the machine hits every series alike.
  for (let i = 0; i < runs; i++) {
    startup.push(...(await cpuOnce(bundle, ["/import"])));
    const [first, second] = await cpuOnce(bundle, ["/request", "/request"]);
    cold.push(first);
    warm.push(second);
    baseline.push(...(await cpuOnce(null, ["/"])));
  }
  const base = median(baseline);
  return {
    startup,
    baseline: base,
    startupMs: Math.max(0, median(startup) - base),
    coldRequestMs: median(cold),
    warmRequestMs: median(warm),
  };
}

/** CPU profiles of the bundle's start-up (for where the time goes, not how much: samples are wall-clock). */
export async function profileStartup(bundlePath: string, runs: number) {
  const bundle = readFileSync(bundlePath, "utf8");
  const profiles: CpuProfile[] = [];
  for (let i = 0; i < runs; i++) profiles.push(await profileOnce(bundle));
  return profiles;
}

/** The wrangler.toml `[alias]` stand-ins, the only modules that may import each, and what each replaces. */
const STAND_INS: { module: string; importers: RegExp; replaces: RegExp }[] = [
  // Imported as "zod" by @hono/zod-openapi (which re-exports it as our `z`) and by our own modules.
  {
    module: "src/bundle-stand-ins/zod-namespace.ts",
    importers: /^(node_modules\/@hono\/zod-openapi\/|src\/)/,
    replaces: /^node_modules\/zod\/index\.js$/,
  },
  {
    module: "src/bundle-stand-ins/zod-locales.ts",
    importers: /^node_modules\/zod\//,
    replaces: /node_modules\/zod\/.*\/locales\/(?!en\.js$)/,
  },
  {
    module: "src/bundle-stand-ins/zod-unbundled.ts",
    importers: /^node_modules\/zod\//,
    replaces: /node_modules\/zod\/v4\/(core\/compile|classic\/from-json-schema|core\/to-json-schema|core\/json-schema-generator)\.js$/,
  },
  {
    module: "src/bundle-stand-ins/drizzle-column-builders.ts",
    importers: /^node_modules\/drizzle-orm\//,
    replaces: /node_modules\/drizzle-orm\/pg-core\/columns\/all\.js$/,
  },
  {
    module: "src/bundle-stand-ins/drizzle-pg-core.ts",
    // Our code (`drizzle-orm/pg-core`) and drizzle's Neon sessions (`../pg-core/index.js`).
    importers: /^(src\/|node_modules\/drizzle-orm\/neon-(http|serverless)\/)/,
    replaces: /node_modules\/drizzle-orm\/pg-core\/index\.js$/,
  },
  {
    module: "src/bundle-stand-ins/drizzle-pg-columns.ts",
    importers: /^node_modules\/drizzle-orm\/pg-core\//,
    replaces: /node_modules\/drizzle-orm\/pg-core\/columns\/index\.js$/,
  },
  {
    // The MCP SDK's Server imports its ajv provider as the default validator; our server passes its own.
    module: "src/bundle-stand-ins/mcp-sdk-ajv.ts",
    importers: /^node_modules\/@modelcontextprotocol\/sdk\//,
    replaces: /node_modules\/(ajv|ajv-formats)\/|node_modules\/@modelcontextprotocol\/sdk\/.*\/ajv-provider\.js$/,
  },
  {
    module: "src/bundle-stand-ins/no-rate-limit-analytics.ts",
    importers: /^node_modules\/@upstash\/ratelimit\//,
    replaces: /node_modules\/@upstash\/core-analytics\//,
  },
];

interface Metafile {
  inputs: Record<string, { imports: { path: string }[] }>;
  outputs: Record<string, { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }>;
}

/** Minified bytes per npm package or file of ours in the bundle. */
function bytesByPackage(metafile: Metafile): Map<string, number> {
  const out = new Map<string, number>();
  const bundle = Object.values(metafile.outputs).find((o) => o.entryPoint);
  for (const [p, { bytesInOutput }] of Object.entries(bundle?.inputs ?? {})) {
    const key = packageOf(p).replace(/^(src\/[^/]+)\/.*/, "$1");
    out.set(key, (out.get(key) ?? 0) + bytesInOutput);
  }
  return out;
}

/** What went into the bundle, from esbuild's metafile; returns the problems found. */
export function checkInputs(metafile: Pick<Metafile, "inputs">): string[] {
  const problems: string[] = [];
  const inputs = Object.keys(metafile.inputs);
  for (const p of inputs) if (/^(tools|test)\//.test(p)) problems.push(`the bundle contains ${p}`);
  // The Worker runs without nodejs_compat (wrangler.toml), where wrangler only warns about a node: import.
  for (const [p, input] of Object.entries(metafile.inputs)) {
    for (const i of input.imports)
      if (i.path.startsWith("node:")) problems.push(`${p} imports ${i.path}, which the Worker's runtime does not have`);
  }
  for (const { module, importers, replaces } of STAND_INS) {
    if (!inputs.includes(module)) problems.push(`${module} is not in the bundle: its [alias] in wrangler.toml did not apply`);
    for (const p of inputs) if (replaces.test(p)) problems.push(`the bundle contains ${p}, which ${module} stands in for`);
    for (const [p, input] of Object.entries(metafile.inputs)) {
      if (input.imports.some((i) => i.path === module) && !importers.test(p)) problems.push(`${p} imports ${module}`);
    }
  }
  return problems;
}

/**
 * Every `z.<name>` that our modules read at run time, where `z` is zod's namespace imported from "zod" or
 * "@hono/zod-openapi", must be a member of the bundle's stand-in (src/bundle-stand-ins/zod-names.ts): a missing
 * one is `undefined` in the Worker, not a build error. esbuild's TypeScript transform drops the
 * type-only uses (`z.infer<...>`, `z.core.$ZodIssue`) and comments first, so what is left is run-time
 * use. Takes module path → TypeScript source; returns the problems found.
 */
export function checkZodNames(sources: Map<string, string>, members: readonly string[] = Object.keys(zodNames)): string[] {
  const problems: string[] = [];
  for (const [file, source] of sources) {
    const { code } = transformSync(source, { loader: "ts" });
    if (!/import\s*\{[^}]*\bz\b[^}]*\}\s*from\s*"(zod|@hono\/zod-openapi)"/.test(code)) continue;
    for (const [, name] of code.matchAll(/(?<![\w$.])z\s*(?:\.\s*([\w$]+)|\[)/g)) {
      if (name === undefined) problems.push(`${file} reads z[...]: zod's namespace stand-in holds only the names it lists`);
      else if (!members.includes(name)) problems.push(`${file} reads z.${name}, which src/bundle-stand-ins/zod-names.ts does not export`);
    }
  }
  return [...new Set(problems)];
}

/** Our modules in the bundle (from the metafile) and their sources. */
function bundledSources(metafile: Pick<Metafile, "inputs">): Map<string, string> {
  const files = Object.keys(metafile.inputs).filter((p) => /^src\/.*\.ts$/.test(p));
  return new Map(files.map((p) => [p, readFileSync(path.join(root, p), "utf8")]));
}

async function main() {
  const args = process.argv.slice(2);
  const dir = args.find((a) => !a.startsWith("--"));
  if (!dir) throw new Error("usage: bundle-report <wrangler --outdir> [--runs=N] [--top]");
  const runs = Number(args.find((a) => a.startsWith("--runs="))?.slice(7) ?? 5);
  let metafile: Metafile | undefined;
  try {
    metafile = JSON.parse(readFileSync(path.join(dir, "meta.json"), "utf8"));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  const problems = metafile ? [...checkInputs(metafile), ...checkZodNames(bundledSources(metafile))] : [];
  for (const p of problems) console.error(`bundle: ${p}`);

  const result = await measureStartup(path.join(dir, "index.js"), runs);
  const fmt = (ms: number) => ms.toFixed(1);
  console.log(
    `start-up CPU: ${fmt(result.startupMs)} ms (median of ${runs} fresh isolates: ${result.startup.map(fmt).join(", ")} ms, ` +
      `minus ${fmt(result.baseline)} ms for a one-line Worker; workerd's CPU time on this machine)`,
  );
  console.log(
    `a 404 request: ${fmt(result.coldRequestMs)} ms CPU on a fresh isolate (start-up included), ${fmt(result.warmRequestMs)} ms the next time; ` +
      `a one-line Worker's request: ${fmt(result.baseline)} ms`,
  );
  if (args.includes("--top")) {
    const map = new TraceMap(readFileSync(path.join(dir, "index.js.map"), "utf8"));
    const total = new Map<string, number>();
    const profiles = await profileStartup(path.join(dir, "index.js"), runs);
    for (const profile of profiles) for (const [k, v] of bySource(profile, map)) total.set(k, (total.get(k) ?? 0) + v / runs);
    console.log(`start-up profile, self time per package (mean of ${runs}; wall-clock samples):`);
    for (const [k, v] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${fmt(v).padStart(7)} ms  ${k}`);
    if (metafile) {
      console.log("bundle, minified bytes per package:");
      const bytes = [...bytesByPackage(metafile)].sort((a, b) => b[1] - a[1]);
      for (const [k, v] of bytes.slice(0, 20)) console.log(`${(v / 1024).toFixed(1).padStart(7)} KiB  ${k}`);
    }
  }
  if (problems.length) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
