/**
 * The Worker's CPU in this checkout against another git revision's, measured in the same rounds:
 * `npm run bench:compare -- <revision> [probe name part …]` (docs/bundle.md#comparing-two-builds).
 *
 * Figures of two separate runs differ by 20 % and more on this machine as its load changes, far more than
 * most changes move them; two builds measured in one run, interleaved, meet the same load. This builds
 * the revision (its tree written to a temporary folder, with this checkout's node_modules) and the working
 * tree as it is (uncommitted changes included), then on one stack loaded with the demo seed:
 *
 * - cold: start-up and each cold-path probe of `npm run bench:cpu` (those whose name contains one of the
 *   given parts, or all), fresh isolates interleaved build by build and round by round, medians minus a
 *   one-line Worker's first request measured in the same rounds;
 * - warm: the replayed requests (test/bench/replay) through each build's replay Worker, alternating
 *   between the two builds (each turn the median of 3 rounds); per request the API's µs, the API ÷
 *   minimal ratio and the API's own work (its log line not written, the in-memory limiter) ÷ minimal.
 *
 *   BENCH_CPU_RUNS (fresh isolates per probe and build, default 10), BENCH_REPLAY_ROUNDS (turns per
 *   build, default 4; 0 skips warm; even numbers let each build go first equally often), BENCH_REPLAY_REQUESTS (per request and round, default 500),
 *   BENCH_COMPARE_REQUESTS (the replayed requests, comma-separated; default all)
 * - refused, with BENCH_COMPARE_REFUSED=<turns per build> (default 0: none): `bench:cpu`'s refused rows
 *   (a 401, a 60 KB path's 414, MCP calls refused before their request) through each build's replay
 *   Worker, alternating (each turn the median of 3 rounds of BENCH_REFUSED_REQUESTS, default 100); per
 *   row both builds' µs and their ratios to the floor (the minimal Worker's GET /clients/{id}) of the same turns.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createToken } from "../../tools/ops/commands";
import { openapiDocument } from "../../tools/ops/openapi";
import { revisionTree } from "../../tools/ops/revision-tree";
import { firstRequest, median, readBundle } from "../../tools/ops/workerd-cpu";
import { buildWorker } from "../support/worker";
import {
  answeredFirstRequest,
  benchCompany,
  coldProbes,
  REFUSED_REQUESTS,
  REPLAYED_REQUESTS,
  type RefusedRequest,
  type ReplayedRequest,
  refusedCpu,
  replayedCpu,
} from "./cpu";

const root = path.resolve(import.meta.dirname, "../..");

const git = (...args: string[]) => {
  const res = spawnSync("git", args, { cwd: root, encoding: "utf8" });
  if (res.status !== 0) throw new Error(`git ${args.join(" ")}: ${res.stderr.trim()}`);
  return res.stdout.trim();
};

/** One line on stderr per stage, with the seconds since start: a run stopped at its time limit says how far it got. */
const started = Date.now();
const progress = (stage: string) => console.error(`[bench:compare ${((Date.now() - started) / 1000).toFixed(0)} s] ${stage}`);

/** Median minus `base`, to one decimal; and the change between two such figures. */
const ms = (samples: number[], base: number) => median(samples) - base;
const signed = (x: number, digits: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(digits)}`;

/** The lines comparing the two builds: cold per probe, then warm per request. */
function comparisonLines(
  labels: { base: string; head: string },
  cold: { runs: number; oneLineMs: number; series: { name: string; base: number[]; head: number[] }[] },
  warm: { rounds: number; n: number; requests: { name: string; base: Record<string, number>; head: Record<string, number> }[] },
): string[] {
  const width = Math.max(10, labels.base.length, labels.head.length);
  const lines: string[] = [];
  // BENCH_CPU_RUNS=0: no cold rounds (the warm or refused rows alone).
  if (cold.runs)
    lines.push(
      `Cold path: workerd CPU, median of ${cold.runs} fresh isolates per build, minus a one-line Worker's first request (${cold.oneLineMs.toFixed(1)} ms):`,
      `  ${"".padEnd(50)} ${labels.base.padStart(width)} ${labels.head.padStart(width)}   change`,
    );
  for (const s of cold.runs ? cold.series : []) {
    const [b, h] = [ms(s.base, cold.oneLineMs), ms(s.head, cold.oneLineMs)];
    lines.push(
      `  ${s.name.padEnd(50)} ${`${b.toFixed(1)} ms`.padStart(width)} ${`${h.toFixed(1)} ms`.padStart(width)}   ${signed(h - b, 1)} ms`,
    );
  }
  if (!warm.requests.length) return lines;
  lines.push(
    `Warm: Workers' own CPU per request, database answers replayed (median of ${warm.rounds} alternating turns, each the median of 3 rounds of ${warm.n}):`,
    `  ${"".padEnd(24)} ${"API µs".padStart(22)}   ${"API ÷ minimal".padStart(14)}   ${"own ÷ minimal".padStart(14)}`,
  );
  for (const r of warm.requests) {
    const ratio = (by: Record<string, number>, k: string) => (by[k] / by.minimal).toFixed(2);
    lines.push(
      `  ${r.name.padEnd(24)} ${`${r.base.api.toFixed(0)} → ${r.head.api.toFixed(0)} (${signed(r.head.api - r.base.api, 0)})`.padStart(22)}   ` +
        `${`${ratio(r.base, "api")} → ${ratio(r.head, "api")}`.padStart(14)}   ` +
        `${`${ratio(r.base, "apiLogNotWritten")} → ${ratio(r.head, "apiLogNotWritten")}`.padStart(14)}`,
    );
  }
  return lines;
}

type Refused = Awaited<ReturnType<typeof refusedCpu>>;

/** The refused rows of both builds: µs per request and the ratio to the floor of the same turns (medians over turns). */
function refusedComparisonLines(
  labels: { base: string; head: string },
  turns: number,
  n: number,
  base: Refused[],
  head: Refused[],
): string[] {
  const at = (rs: Refused[], row: RefusedRequest | "floor") => median(rs.map((r) => (row === "floor" ? r.floor : r.api[row])));
  const lines = [
    `Refused before their work: the API's µs per request and ÷ the floor (median of ${turns} alternating turns, each the median of 3 rounds of ${n}), ${labels.base} → ${labels.head}:`,
    `  ${"floor: the minimal Worker's GET /clients/{id}".padEnd(52)} ${at(base, "floor").toFixed(0)} → ${at(head, "floor").toFixed(0)} µs`,
  ];
  for (const row of Object.keys(REFUSED_REQUESTS) as RefusedRequest[]) {
    const [b, h] = [at(base, row), at(head, row)];
    const ratio = (x: number, rs: Refused[]) => (x / at(rs, "floor")).toFixed(2);
    lines.push(
      `  ${REFUSED_REQUESTS[row].name.padEnd(52)} ${b.toFixed(0)} → ${h.toFixed(0)} µs (${signed(h - b, 0)})   ${ratio(b, base)} → ${ratio(h, head)}× the floor`,
    );
  }
  return lines;
}

async function compare(revision: string, probeParts: string[]) {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const runs = env("BENCH_CPU_RUNS", 10);
  const rounds = env("BENCH_REPLAY_ROUNDS", 4);
  const n = env("BENCH_REPLAY_REQUESTS", 500);
  const refusedTurns = env("BENCH_COMPARE_REFUSED", 0);
  const refusedN = env("BENCH_REFUSED_REQUESTS", 100);
  const requests = (process.env.BENCH_COMPARE_REQUESTS?.split(",") ?? Object.keys(REPLAYED_REQUESTS)) as ReplayedRequest[];
  for (const r of requests)
    if (!(r in REPLAYED_REQUESTS)) throw new Error(`unknown request ${r}: one of ${Object.keys(REPLAYED_REQUESTS)}`);

  const sha = git("rev-parse", "--short", `${revision}^{commit}`);
  const dirty = git("status", "--porcelain", "--untracked-files=no") !== "";
  const labels = {
    base: revision === sha ? sha : `${revision} ${sha}`,
    head: `${git("rev-parse", "--short", "HEAD")}${dirty ? "+changes" : ""}`,
  };
  const dir = mkdtempSync(path.join(tmpdir(), "crm-bench-compare-"));
  // embedded PostgreSQL runs as another user, which must reach its data folder inside.
  chmodSync(dir, 0o755);
  try {
    const tree = revisionTree(root, sha, path.join(dir, "revision"));
    if (readFileSync(path.join(tree, "package-lock.json"), "utf8") !== readFileSync(path.join(root, "package-lock.json"), "utf8"))
      console.log(`note: ${labels.base}'s package-lock.json differs; it is built with this checkout's node_modules`);
    const build = (from: string, name: string, entry?: string) => {
      mkdirSync(path.join(dir, name));
      return buildWorker(path.join(dir, name), undefined, entry && path.join(from, entry), { root: from });
    };
    // The Worker, and the replay Worker when warm figures are asked for.
    const buildsOf = (from: string, name: string) => ({
      worker: readBundle(build(from, name)),
      replay: rounds || refusedTurns ? build(from, `${name}-replay`, "test/bench/replay/worker.ts") : "",
    });
    const builds = { base: buildsOf(tree, "base"), head: buildsOf(root, "head") };
    progress("both builds done");
    const company = await benchCompany(dir);
    progress("stack started, demo seed loaded");
    try {
      const { token } = await createToken(company.db, { companyId: company.companyId });
      const probes = coldProbes((await openapiDocument()) as never, token).filter(
        (p) => !probeParts.length || probeParts.some((part) => p.name.toLowerCase().includes(part.toLowerCase())),
      );
      const series = [
        { name: "start-up", base: [] as number[], head: [] as number[] },
        ...probes.map((p) => ({ name: p.name, base: [], head: [] })),
      ];
      const oneLine: number[] = [];
      // Which build goes first alternates, so neither always meets the other's after-effects.
      const order = (round: number) => (round % 2 ? (["head", "base"] as const) : (["base", "head"] as const));
      for (let round = 0; round < runs; round++) {
        oneLine.push((await firstRequest(null, {})).cpuMs);
        for (const which of order(round)) {
          const bundle = builds[which].worker;
          series[0][which].push((await firstRequest(bundle, company.stack.vars)).cpuMs);
          for (const [i, probe] of probes.entries()) {
            const answer = await answeredFirstRequest(`${labels[which]} ${probe.name}`, bundle, company.stack.vars, probe.request);
            series[i + 1][which].push(answer.cpuMs);
          }
        }
      }
      progress("cold path measured");
      const warm = { base: [] as Awaited<ReturnType<typeof replayedCpu>>[], head: [] as Awaited<ReturnType<typeof replayedCpu>>[] };
      for (let round = 0; round < rounds; round++)
        for (const which of order(round))
          warm[which].push(
            await replayedCpu(builds[which].replay, company, { requests, rounds: 3, n, logFile: path.join(dir, `${which}.log`) }),
          );
      const refused = { base: [] as Refused[], head: [] as Refused[] };
      for (let round = 0; round < refusedTurns; round++)
        for (const which of order(round))
          refused[which].push(
            await refusedCpu(builds[which].replay, company, { rounds: 3, n: refusedN, logFile: path.join(dir, `${which}-refused.log`) }),
          );
      if (refusedTurns) progress("refused requests measured");
      const medians = (rs: typeof warm.base, request: ReplayedRequest) =>
        Object.fromEntries((["minimal", "api", "apiLogNotWritten"] as const).map((k) => [k, median(rs.map((r) => r[request][k]))]));
      const lines = comparisonLines(
        labels,
        { runs, oneLineMs: median(oneLine), series },
        {
          rounds,
          n,
          requests: rounds
            ? requests.map((r) => ({ name: REPLAYED_REQUESTS[r], base: medians(warm.base, r), head: medians(warm.head, r) }))
            : [],
        },
      );
      return refusedTurns ? [...lines, ...refusedComparisonLines(labels, refusedTurns, refusedN, refused.base, refused.head)] : lines;
    } finally {
      await company.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [revision, ...probeParts] = process.argv.slice(2);
  if (!revision) throw new Error("usage: npm run bench:compare -- <git revision> [probe name part …]");
  for (const line of await compare(revision, probeParts)) console.log(line);
  process.exit(0);
}
