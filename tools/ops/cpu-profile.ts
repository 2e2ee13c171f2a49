/**
 * V8 CPU profiles of the Worker in workerd, through workerd's inspector, read through the bundle's
 * source map: where start-up, a first request or warm requests spend their time (`npm run
 * bench:profile`, `npm run bundle:report -- --top`). The samples are wall-clock time, so on a busy
 * machine they include waiting for a CPU: read them as shares, and take absolute CPU from
 * workerd-cpu.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";
import type { Miniflare } from "miniflare";
import WebSocket from "ws";

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** How long any one inspector step may take: a hung inspector fails the run instead of stalling it. */
const STEP_MS = 60_000;

/**
 * Profiles the user Worker of `mf` (started with `inspectorPort: 0`) while `action` runs; every wait
 * on the inspector is bounded. `intervalUs`: the sampling interval.
 */
export async function profiled<T>(mf: Miniflare, action: () => Promise<T>, intervalUs = 100): Promise<CpuProfile> {
  const ws = new WebSocket(new URL("/core:user:harness", await mf.getInspectorURL()).href);
  const deadline = (what: string) =>
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`inspector: ${what} took over ${STEP_MS / 1000} s`)), STEP_MS).unref(),
    );
  try {
    await Promise.race([
      new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject)),
      deadline("opening the connection"),
    ]);
    let next = 0;
    const pending = new Map<number, { resolve: (result: unknown) => void; reject: (e: Error) => void }>();
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
      const waiting = msg.id === undefined ? undefined : pending.get(msg.id);
      if (!waiting) return;
      pending.delete(msg.id!);
      if (msg.error) waiting.reject(new Error(msg.error.message));
      else waiting.resolve(msg.result);
    });
    const send = (method: string, params: object = {}) =>
      Promise.race([
        new Promise<unknown>((resolve, reject) => {
          const id = ++next;
          pending.set(id, { resolve, reject });
          ws.send(JSON.stringify({ id, method, params }));
        }),
        deadline(method),
      ]);
    await send("Profiler.enable");
    await send("Profiler.setSamplingInterval", { interval: intervalUs });
    await send("Profiler.start");
    await Promise.race([action(), deadline("the profiled work")]);
    const { profile } = (await send("Profiler.stop")) as { profile: CpuProfile };
    return profile;
  } finally {
    ws.close();
  }
}

/**
 * A source path as its npm package, or as one of our files. drizzle-orm's own source maps drop the
 * package name (node_modules/src/pg-core/...).
 */
export function packageOf(source: string): string {
  const pkg = source.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (pkg) return pkg === "src" ? "drizzle-orm" : pkg;
  return source.replace(/^(\.\.\/)+/, "").replace(/^.*?\/((src|test|tools)\/)/, "$1");
}

/** The source maps of a built Worker's modules (the entry and its chunks), by file name. */
export type SourceMaps = Map<string, TraceMap>;

/** The source maps beside the Worker's entry module `entryPath`. */
export function readSourceMaps(entryPath: string): SourceMaps {
  const dir = path.dirname(entryPath);
  return new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith(".js.map"))
      .map((f) => [f.slice(0, -".map".length), new TraceMap(readFileSync(path.join(dir, f), "utf8"))]),
  );
}

/**
 * A frame as `function source:line` (through the module's source map for frames in the Worker's
 * modules), and the npm package or file of ours it belongs to.
 */
function frameInfo(frame: ProfileNode["callFrame"], maps: SourceMaps): { label: string; pkg: string } {
  const map = maps.get(frame.url.replace(/^.*\//, ""));
  if (!map || frame.lineNumber < 0) {
    // V8's own frames have no URL: (garbage collector), (program) = compiling, (idle).
    const label = [frame.functionName || "(anonymous)", frame.url.replace(/^.*\//, "")].filter(Boolean).join(" ");
    return { label, pkg: frame.url || label };
  }
  const pos = originalPositionFor(map, { line: frame.lineNumber + 1, column: frame.columnNumber });
  // Unmapped: code esbuild wrote (its module wrappers and helpers), run as modules are first imported.
  if (!pos.source) return { label: `${frame.functionName || "(anonymous)"} (bundle, unmapped)`, pkg: "(bundle, unmapped)" };
  const source = pos.source
    .replace(/^(\.\.\/)+/, "")
    .replace(/^.*node_modules\//, "")
    .replace(/^.*?\/((src|test|tools)\/)/, "$1");
  // V8 names an anonymous function after what encloses it, here a module's init function, which esbuild
  // names after its file: such a name says only where the function is.
  const named = pos.name ?? frame.functionName;
  const name = !named || /\.(ts|m?js)$/.test(named) ? "(anonymous)" : named;
  return { label: `${name} ${source}:${pos.line}`, pkg: packageOf(pos.source) };
}

/** Per function (`name source:line`) and per package: self and total time, ms per profile (the mean). */
export function summarize(profiles: CpuProfile[], maps: SourceMaps) {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let busy = 0;
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
    const infos = new Map<number, { label: string; pkg: string }>();
    const info = (n: ProfileNode) => {
      const known = infos.get(n.id);
      if (known) return known;
      const found = frameInfo(n.callFrame, maps);
      infos.set(n.id, found);
      return found;
    };
    const label = (n: ProfileNode) => info(n).label;
    profile.samples.forEach((id, i) => {
      const node = nodes.get(id);
      if (!node || node.callFrame.functionName === "(idle)") return;
      const ms = (profile.timeDeltas[i] ?? 0) / 1000 / profiles.length;
      busy += ms;
      add(self, label(node), ms);
      add(byPackage, info(node).pkg, ms);
      // Total: each function once per sample, however often it recurs on the stack.
      const seen = new Set<string>();
      for (let n: ProfileNode | undefined = node; n; n = nodes.get(parent.get(n.id)!)) {
        const k = label(n);
        if (!seen.has(k)) {
          seen.add(k);
          add(total, k, ms);
        }
      }
    });
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { busy, self: sorted(self), total: sorted(total), byPackage: sorted(byPackage) };
}

/** The summary's top lines: busy time, then the top functions by self time and by total time. */
export function topLines(summary: ReturnType<typeof summarize>, top = 20): string[] {
  const row = ([k, v]: [string, number]) => `  ${v.toFixed(2).padStart(7)} ms  ${k}`;
  // Frames every sample passes through (the root, the harness) say nothing: left out of the totals.
  const totals = summary.total.filter(([k]) => !/^\(root\)|harness\.js$/.test(k));
  return [
    `busy ${summary.busy.toFixed(1)} ms (wall-clock samples, mean per profile)`,
    "top functions by self time:",
    ...summary.self.slice(0, top).map(row),
    "top functions by total time (with what they call):",
    ...totals.slice(0, top).map(row),
  ];
}

/**
 * Where `summary` spends more self time than `base` (another Worker doing the same work): per package,
 * then the top functions, each as the difference and the two figures.
 */
export function differenceLines(summary: ReturnType<typeof summarize>, base: ReturnType<typeof summarize>, top = 20): string[] {
  const rows = (a: [string, number][], b: [string, number][]) => {
    const other = new Map(b);
    const keys = new Set([...a.map(([k]) => k), ...b.map(([k]) => k)]);
    const own = new Map(a);
    return [...keys].map((k) => [k, own.get(k) ?? 0, other.get(k) ?? 0] as const).sort((x, y) => y[1] - y[2] - (x[1] - x[2]));
  };
  const row = ([k, mine, theirs]: readonly [string, number, number]) =>
    `  ${(mine - theirs).toFixed(2).padStart(8)} ms  (${mine.toFixed(2)} against ${theirs.toFixed(2)})  ${k}`;
  return [
    `  busy ${summary.busy.toFixed(1)} ms against ${base.busy.toFixed(1)} ms`,
    " per package:",
    ...rows(summary.byPackage, base.byPackage).slice(0, top).map(row),
    " per function:",
    ...rows(summary.self, base.self).slice(0, top).map(row),
  ];
}
