/**
 * The Worker's CPU time in workerd, as the kernel counts it: what `npm run bundle:report`, `npm run
 * bench`, `npm run bench:cpu` and `npm run bench:profile` measure with (docs/bundle.md#start-up-cpu).
 *
 * A fresh isolate is a fresh workerd (Miniflare) running a harness Worker whose first request imports
 * the bundle, as `wrangler check startup` sets it up; the cost of a request is the CPU time the kernel
 * charged to that workerd's threads while it was answered (/proc schedstat, so Linux only). Kernel CPU
 * time leaves out time spent waiting for a CPU, so a busy machine inflates it far less than a
 * profiler's wall-clock samples; this machine's CPU is not Cloudflare's, so compare runs on one
 * machine, in one run, not across hosts.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

const root = path.resolve(import.meta.dirname, "../..");

/**
 * The harness Worker. `/__import` imports the bundle (its start-up, as `wrangler check startup` does);
 * any other request imports it if not yet done and hands it the request (the path without the
 * `/__request` prefix), with an execution context whose `waitUntil` work is awaited before the
 * harness answers, so work deferred past the response is counted with its request. It answers the
 * Worker's status and body.
 */
const HARNESS = `let worker;
export default {
  async fetch(req, env) {
    worker ??= (await import("./index.js")).default;
    const url = new URL(req.url);
    if (url.pathname === "/__import") return new Response("imported");
    const deferred = [];
    const ctx = { waitUntil: (p) => void deferred.push(p), passThroughOnException() {}, props: {} };
    const inner = new Request(new URL(url.pathname.slice("/__request".length) + url.search, url), req);
    const res = await worker.fetch(inner, env, ctx);
    const body = await res.text();
    await Promise.allSettled(deferred);
    return Response.json({ status: res.status, body });
  },
};`;
/** A one-line Worker, the baseline: what workerd spends on a request and an isolate of its own. */
const ONE_LINE = `export default { fetch() { return new Response(JSON.stringify({ status: 200, body: "ok" })); } };`;

/** wrangler.toml's compatibility settings; the Worker's log lines (stdout) are dropped, its errors kept. */
function runtimeOptions(bindings: Record<string, string>) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, "wrangler.toml"));
  return {
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    bindings,
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      stdout.resume();
      stderr.on("data", (chunk) => process.stderr.write(chunk));
    },
  };
}

/** Pids of the workerd processes this process started. */
function workerdPids(): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const [comm, rest] = [stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), stat.slice(stat.lastIndexOf(")") + 2)];
    if (comm === "workerd" && Number(rest.split(" ")[1]) === process.pid) pids.push(Number(pid));
  }
  return pids;
}

/**
 * CPU time (ns) used so far by every thread of `pids` (default: every workerd this process started):
 * what the kernel counted on a CPU, so time spent waiting for one on a busy machine is not in it.
 */
export function workerdCpuNs(pids: number[] = workerdPids()): number {
  let ns = 0;
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {}
    }
  }
  return ns;
}

/** A built Worker: its entry module's text and the other modules beside it (code-split chunks), by file name. */
export interface Bundle {
  main: string;
  chunks: { name: string; contents: string }[];
}

/** The Worker built at `entryPath` (wrangler's output: the entry and, beside it, the chunks it imports). */
export function readBundle(entryPath: string): Bundle {
  const dir = path.dirname(entryPath);
  const chunks = readdirSync(dir)
    .filter((f) => f.endsWith(".js") && f !== path.basename(entryPath))
    .map((name) => ({ name, contents: readFileSync(path.join(dir, name), "utf8") }));
  return { main: readFileSync(entryPath, "utf8"), chunks };
}

/** What a request to a fresh isolate answered, and the workerd CPU (ms) it took. */
export interface Measured {
  cpuMs: number;
  status: number;
  body: string;
}

/** A request as the harness forwards it: a path under the Worker's origin, and its init. */
export interface HarnessRequest {
  path: string;
  init?: RequestInit;
}

/**
 * A fresh workerd running `bundle` behind the harness, or the one-line Worker (`null`).
 * `request()` with no argument imports the bundle only (start-up); with one, hands it to the Worker.
 * With `inspector`, workerd opens its inspector on a free port (for `bench:profile`).
 */
export async function freshIsolate(bundle: Bundle | null, bindings: Record<string, string>, opts: { inspector?: boolean } = {}) {
  const before = new Set(workerdPids());
  const modules = [{ type: "ESModule" as const, path: "/harness.js", contents: bundle === null ? ONE_LINE : HARNESS }];
  if (bundle !== null) {
    modules.push({ type: "ESModule", path: "/index.js", contents: bundle.main });
    for (const chunk of bundle.chunks) modules.push({ type: "ESModule", path: `/${chunk.name}`, contents: chunk.contents });
  }
  const mf = new Miniflare({
    name: "harness",
    modulesRoot: "/",
    modules,
    ...(opts.inspector ? { inspectorPort: 0 } : {}),
    ...runtimeOptions(bindings),
  });
  await mf.ready;
  const pids = workerdPids().filter((p) => !before.has(p));
  return {
    mf,
    /** The request's workerd CPU, its status and body; 60 s at most. */
    async request(request?: HarnessRequest): Promise<Measured> {
      const url = request ? `http://localhost/__request${request.path}` : "http://localhost/__import";
      const cpuBefore = workerdCpuNs(pids);
      const res = await mf.dispatchFetch(url, { ...(request?.init as object), signal: AbortSignal.timeout(60_000) });
      const text = await res.text();
      const cpuMs = (workerdCpuNs(pids) - cpuBefore) / 1e6;
      if (res.status !== 200) throw new Error(`the harness answered ${res.status}: ${text.slice(0, 500)}`);
      if (text === "imported") return { cpuMs, status: 200, body: "" };
      const answer = JSON.parse(text) as { status: number; body: string };
      return { cpuMs, ...answer };
    },
    dispose: () => mf.dispose(),
  };
}

/** One fresh isolate's first request (or start-up alone, without `request`); the isolate is disposed after. */
export async function firstRequest(bundle: Bundle | null, bindings: Record<string, string>, request?: HarnessRequest): Promise<Measured> {
  const isolate = await freshIsolate(bundle, bindings);
  try {
    return await isolate.request(bundle === null ? { path: "/" } : request);
  } finally {
    await isolate.dispose();
  }
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
