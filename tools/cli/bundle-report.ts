/**
 * What the Worker bundle costs: `npm run bundle:report -- dist/worker [--runs=N] [--top]`, on the output
 * of the Worker's build (tools/cli/worker-build.ts: its modules and meta.json, esbuild's metafile).
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
 * each of the build's ALIASES stand-ins in place of its module, imported only by the package it was
 * meant for, and every `z.<name>` our bundled code reads at run time present in zod's namespace stand-in.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { transformSync } from "esbuild";
import * as zodNames from "../../src/bundle-stand-ins/zod-names";
import { type CpuProfile, packageOf, profiled, readSourceMaps, summarize, topLines } from "../ops/cpu-profile";
import { type Bundle, firstRequest, freshIsolate, median, readBundle } from "../ops/workerd-cpu";

const root = path.resolve(import.meta.dirname, "../..");

/** The settings check needs a DATABASE_URL; the 404 probe never connects to it. */
const PLACEHOLDER = { DATABASE_URL: "postgresql://startup-probe@127.0.0.1:9/never-connected" };
/** An unknown path: the request middleware and router, no database. */
const PROBE = { path: "/startup-probe" };

/** One fresh workerd, one profiled first request (the start-up); resolves to the CPU profile. */
async function profileOnce(bundle: Bundle): Promise<CpuProfile> {
  const isolate = await freshIsolate(bundle, PLACEHOLDER, { inspector: true });
  try {
    return await profiled(isolate.mf, () => isolate.request());
  } finally {
    await isolate.dispose();
  }
}

/**
 * Medians over fresh isolates (ms of workerd CPU): start-up (importing the bundle, minus a one-line
 * Worker's first request), a cold request (start-up plus the first request) and a warm one.
 */
export async function measureStartup(bundlePath: string, runs = 5) {
  const bundle = readBundle(bundlePath);
  const startup: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  const baseline: number[] = [];
  // Interleaved, so a burst of load elsewhere on the machine hits every series alike.
  for (let i = 0; i < runs; i++) {
    startup.push((await firstRequest(bundle, PLACEHOLDER)).cpuMs);
    const isolate = await freshIsolate(bundle, PLACEHOLDER);
    try {
      cold.push((await isolate.request(PROBE)).cpuMs);
      warm.push((await isolate.request(PROBE)).cpuMs);
    } finally {
      await isolate.dispose();
    }
    baseline.push((await firstRequest(null, {})).cpuMs);
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
  const bundle = readBundle(bundlePath);
  const profiles: CpuProfile[] = [];
  for (let i = 0; i < runs; i++) profiles.push(await profileOnce(bundle));
  return profiles;
}

/** The build's alias stand-ins (tools/cli/worker-build.ts ALIASES), the only modules that may import each, and what each replaces. */
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
    replaces: /node_modules\/zod\/v4\/core\/compile\.js$/,
  },
  {
    module: "src/bundle-stand-ins/drizzle-column-builders.ts",
    importers: /^node_modules\/drizzle-orm\//,
    replaces: /node_modules\/drizzle-orm\/pg-core\/columns\/all\.js$/,
  },
  {
    // The MCP SDK's Server imports its ajv provider as the default validator; our server passes its own.
    module: "src/bundle-stand-ins/mcp-sdk-ajv.ts",
    importers: /^node_modules\/@modelcontextprotocol\/sdk\//,
    replaces: /node_modules\/(ajv|ajv-formats)\/|node_modules\/@modelcontextprotocol\/sdk\/.*\/ajv-provider\.js$/,
  },
  {
    // The Worker serves the document built at build time; @hono/zod-openapi's registry and `.openapi()` record nothing.
    module: "src/bundle-stand-ins/zod-to-openapi.ts",
    importers: /^node_modules\/@hono\/zod-openapi\//,
    replaces: /node_modules\/@asteasolutions\/zod-to-openapi\//,
  },
];

interface Metafile {
  inputs: Record<string, { imports: { path: string }[] }>;
  outputs: Record<string, { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }>;
}

/** Minified bytes per npm package or file of ours in the bundle (every module of it: the entry and its chunks). */
function bytesByPackage(metafile: Metafile): Map<string, number> {
  const out = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [p, { bytesInOutput }] of Object.entries(output.inputs)) {
      const key = packageOf(p).replace(/^(src\/[^/]+)\/.*/, "$1");
      out.set(key, (out.get(key) ?? 0) + bytesInOutput);
    }
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
    if (!inputs.includes(module)) problems.push(`${module} is not in the bundle: its alias in tools/cli/worker-build.ts did not apply`);
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

  const fmt = (ms: number) => ms.toFixed(1);
  // --runs=0: the checks alone (.ci/run measures the cold path with the database: npm run bench:cpu).
  const result = runs > 0 ? await measureStartup(path.join(dir, "index.js"), runs) : undefined;
  if (result) {
    console.log(
      `start-up CPU: ${fmt(result.startupMs)} ms (median of ${runs} fresh isolates: ${result.startup.map(fmt).join(", ")} ms, ` +
        `minus ${fmt(result.baseline)} ms for a one-line Worker; workerd's CPU time on this machine)`,
    );
    console.log(
      `a 404 request: ${fmt(result.coldRequestMs)} ms CPU on a fresh isolate (start-up included), ${fmt(result.warmRequestMs)} ms the next time; ` +
        `a one-line Worker's request: ${fmt(result.baseline)} ms`,
    );
  }
  if (args.includes("--top")) {
    const summary = summarize(
      await profileStartup(path.join(dir, "index.js"), Math.max(runs, 1)),
      readSourceMaps(path.join(dir, "index.js")),
    );
    console.log(`start-up profile (mean of ${Math.max(runs, 1)} fresh isolates; wall-clock samples), self time per package:`);
    for (const [k, v] of summary.byPackage.slice(0, 20)) console.log(`${fmt(v).padStart(7)} ms  ${k}`);
    for (const line of topLines(summary)) console.log(line);
    if (metafile) {
      console.log("bundle, minified bytes per package:");
      const bytes = [...bytesByPackage(metafile)].sort((a, b) => b[1] - a[1]);
      for (const [k, v] of bytes.slice(0, 20)) console.log(`${(v / 1024).toFixed(1).padStart(7)} KiB  ${k}`);
    }
  }
  if (problems.length) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
