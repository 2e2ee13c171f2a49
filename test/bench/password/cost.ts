/**
 * `npm run bench:password`: the workerd CPU of the settings area's password hash (src/settings/passwords.ts,
 * scrypt N=2^14 r=8 p=5) per hash and per check (a sign-in), against an empty request in the same isolate,
 * the median of BENCH_PASSWORD_RUNS (default 7) rounds. docs/settings.md#passwords quotes it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freshIsolate, median, readBundle } from "../../../tools/ops/workerd-cpu";
import { buildWorker } from "../../support/worker";

const runs = Number(process.env.BENCH_PASSWORD_RUNS ?? 7);
const out = mkdtempSync(path.join(tmpdir(), "crm-password-bench-"));
try {
  const entry = buildWorker(out, undefined, path.join(import.meta.dirname, "worker.ts"));
  const isolate = await freshIsolate(readBundle(entry), {});
  try {
    await isolate.request({ path: "/hash" }); // compiled and warm
    const noop: number[] = [];
    const hash: number[] = [];
    const verify: number[] = [];
    for (let i = 0; i < runs; i++) {
      noop.push((await isolate.request({ path: "/" })).cpuMs);
      hash.push((await isolate.request({ path: "/hash" })).cpuMs);
      verify.push((await isolate.request({ path: "/verify" })).cpuMs);
    }
    const floor = median(noop);
    console.log(`workerd CPU, median of ${runs} (${new Date().toISOString().slice(0, 10)}):`);
    console.log(`  empty request      ${floor.toFixed(1)} ms`);
    console.log(`  hash a password    ${median(hash).toFixed(1)} ms (${(median(hash) / floor).toFixed(0)}x the empty request)`);
    console.log(`  check a password   ${median(verify).toFixed(1)} ms (a sign-in, an unknown address included)`);
  } finally {
    await isolate.dispose();
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
