/**
 * CPU profiles of the Worker in workerd, and its top functions: `npm run bench:profile -- <what>`.
 *
 *   startup            a fresh isolate importing the bundle
 *   cold <part>        a fresh isolate's first request, for the cold-path probe whose name contains
 *                      <part> (as `npm run bench:cpu` lists them: `Clients`, `Order contents`, `MCP` …)
 *   warm <request>     warm requests with the database's answers replayed (getClient, listClients,
 *                      createClient, getOrder: test/bench/replay), BENCH_PROFILE_REQUESTS of them (default
 *                      3000) after a warm-up; a third word profiles another Worker of the replay: `minimal`,
 *                      `apiMemoryLimiter` or `apiLogNotWritten` (with the inspector attached, console.log
 *                      also goes to it and costs far more than without: this one leaves the line unwritten);
 *                      a fourth profiles that Worker too and prints where the first spends more than it,
 *                      per package and per function (`warm getClient apiLogNotWritten minimal`: what the
 *                      API adds to the minimal Worker's work)
 *
 * It builds the bundle as `wrangler deploy` does but not minified (function names and module paths stay
 * readable: esbuild names each module's init function after its file), starts the local stack with the
 * demo seed, runs the target with workerd's inspector open (every inspector step bounded to 60 s), and
 * prints the top functions by self and total time, mapped through the source map to our files and the
 * packages' own. Each profile is written to `profiles/<what>-<n>.cpuprofile` (Chrome DevTools'
 * Performance panel or speedscope.app open it). BENCH_PROFILE_RUNS: fresh isolates for startup and cold
 * (default 5; the summary is their mean). The samples are wall-clock time: on a busy machine read them
 * as shares, and take absolute CPU from `npm run bench:cpu`.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createToken } from "../../tools/ops/commands";
import { type CpuProfile, differenceLines, profiled, readSourceMaps, summarize, topLines } from "../../tools/ops/cpu-profile";
import { openapiDocument } from "../../tools/ops/openapi";
import { freshIsolate, readBundle } from "../../tools/ops/workerd-cpu";
import { buildWorker } from "../support/worker";
import { benchCompany, coldProbes, REFUSED_REQUESTS, REPLAY_WORKERS, REPLAYED_REQUESTS } from "./cpu";

const [what, target, variant, against] = process.argv.slice(2);
const usage = `usage: npm run bench:profile -- startup | cold <probe name part> | warm <${[...Object.keys(REPLAYED_REQUESTS), ...Object.keys(REFUSED_REQUESTS)].join("|")}> [<worker> [<worker to compare with>]]`;
if (!["startup", "cold", "warm"].includes(what) || (what !== "startup" && !target)) throw new Error(usage);
if (what === "warm" && !(target in REPLAYED_REQUESTS) && !(target in REFUSED_REQUESTS)) throw new Error(usage);
const runs = what === "warm" ? 1 : Number(process.env.BENCH_PROFILE_RUNS ?? 5);
const warmRequests = Number(process.env.BENCH_PROFILE_REQUESTS ?? 3000);

const root = path.resolve(import.meta.dirname, "../..");
const tmp = mkdtempSync(path.join(tmpdir(), "crm-profile-"));
chmodSync(tmp, 0o755);
try {
  const out = path.join(tmp, "bundle");
  mkdirSync(out);
  const entry = what === "warm" ? path.join(import.meta.dirname, "replay/worker.ts") : undefined;
  const script = buildWorker(out, undefined, entry, { minify: false });
  const bundle = readBundle(script);
  const maps = readSourceMaps(script);
  const company = await benchCompany(tmp);
  try {
    const { token } = await createToken(company.db, { companyId: company.companyId });
    const bindings = company.stack.vars;
    const profiles: CpuProfile[] = [];
    let label = what;
    let compared: { label: string; lines: string[] } | undefined;
    const top = Number(process.env.BENCH_PROFILE_TOP ?? 25);
    if (what === "warm") {
      const which = variant ?? "api";
      for (const w of [which, against ?? which]) if (!(REPLAY_WORKERS as readonly string[]).includes(w)) throw new Error(usage);
      label = `warm-${target}-${which}`;
      const tokens = await Promise.all(
        Array.from({ length: 128 }, async () => (await createToken(company.db, { companyId: company.companyId })).token),
      );
      const ids = `company=${company.companyId}&client=${company.ids.northside}&order=${company.ids["ord-northside-tees"]}`;
      const warmProfile = async (worker: string) => {
        const path = (n: number, replay: boolean) =>
          `/?which=${worker}&request=${target}&n=${n}&${ids}&replay=${replay ? 1 : 0}&tokens=${tokens.join(",")}`;
        const isolate = await freshIsolate(bundle, bindings, { inspector: true });
        try {
          // Record the answers, warm the replayed path, then profile.
          await isolate.request({ path: path(tokens.length, false) });
          await isolate.request({ path: path(500, true) });
          return await profiled(isolate.mf, () => isolate.request({ path: path(warmRequests, true) }));
        } finally {
          await isolate.dispose();
        }
      };
      profiles.push(await warmProfile(which));
      if (against) {
        const base = summarize([await warmProfile(against)], maps);
        compared = { label: `warm-${target}-${against}`, lines: differenceLines(summarize(profiles, maps), base, top) };
      }
    } else {
      const probe =
        what === "cold"
          ? coldProbes((await openapiDocument()) as Parameters<typeof coldProbes>[0], token).find((p) =>
              p.name.toLowerCase().includes(target.toLowerCase()),
            )
          : undefined;
      if (what === "cold" && !probe) throw new Error(`no cold-path probe's name contains "${target}" (npm run bench:cpu lists them)`);
      if (probe) label = `cold-${probe.name.split(":")[0].toLowerCase().replace(/\W+/g, "-")}`;
      for (let i = 0; i < runs; i++) {
        const isolate = await freshIsolate(bundle, bindings, { inspector: true });
        try {
          profiles.push(await profiled(isolate.mf, () => isolate.request(probe?.request)));
        } finally {
          await isolate.dispose();
        }
      }
    }
    const dir = path.join(root, "profiles");
    mkdirSync(dir, { recursive: true });
    const files = profiles.map((profile, i) => {
      const file = path.join(dir, `${label}-${i + 1}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return path.relative(root, file);
    });
    const summary = summarize(profiles, maps);
    console.log(`${label}: ${profiles.length === 1 ? "one profile" : `mean of ${profiles.length} fresh isolates`} (${files.join(", ")})`);
    if (what === "warm") console.log(`  ${warmRequests} requests: divide by ${warmRequests} for per-request figures`);
    for (const line of topLines(summary, top)) console.log(line);
    console.log("self time per package:");
    for (const [k, v] of summary.byPackage.slice(0, 12)) console.log(`  ${v.toFixed(2).padStart(7)} ms  ${k}`);
    if (compared) {
      console.log(`${label} against ${compared.label} (self time, this one minus that one):`);
      for (const line of compared.lines) console.log(line);
    }
  } finally {
    await company.stop();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(0);
