import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

// `npm run bench:compare` at the smallest size, so that a change to the build, the probes or the replay
// Worker cannot break it unnoticed. It times nothing here: only that both builds are measured, cold and
// warm, and that the revision's tree is gone afterwards.
//
// Its work: four Worker builds, a PostgreSQL started and seeded, and a few dozen fresh isolates, about 62 s of
// CPU: 48-52 s in a full CI run on a 2-core machine about 2.3x slower than docs/bundle.md's, 8 min 47 s on the
// same machine while half a dozen other test runs took 89 % of its CPU. The limit is for a hang, not for speed:
// 900 s for the command (whose progress lines then say how far it got), and a little more for the test.
const COMMAND_LIMIT_MS = 900_000;
test(
  "bench:compare measures HEAD against the working tree, cold and warm, and removes the revision's tree",
  () => {
    // A temporary folder of its own (TMPDIR): another run on the machine makes and removes its own trees.
    const tmp = mkdtempSync(path.join(tmpdir(), "crm-compare-test-"));
    chmodSync(tmp, 0o755); // PostgreSQL runs as another user, under it
    const folders = () => readdirSync(tmp).filter((f) => f.startsWith("crm-bench-compare-"));
    try {
      const res = spawnSync(path.join(root, "node_modules/.bin/tsx"), ["test/bench/compare.ts", "HEAD", "health"], {
        cwd: root,
        encoding: "utf8",
        timeout: COMMAND_LIMIT_MS,
        env: {
          ...process.env,
          TMPDIR: tmp,
          BENCH_CPU_RUNS: "1",
          BENCH_REPLAY_ROUNDS: "1",
          BENCH_REPLAY_REQUESTS: "50",
          BENCH_COMPARE_REQUESTS: "getClient",
        },
      });
      expect(res.status, res.stdout + res.stderr).toBe(0);
      const figure = String.raw`\d+\.\d ms +\d+\.\d ms +[+−]\d+\.\d ms`;
      expect(res.stdout).toMatch(new RegExp(String.raw`start-up +${figure}`));
      expect(res.stdout).toMatch(new RegExp(String.raw`Health: GET /health +${figure}`));
      // Only the probes asked for.
      expect(res.stdout).not.toMatch(/Clients: GET/);
      expect(res.stdout).toMatch(/GET \/clients\/\{id\} +\d+ → \d+ \([+−]\d+\) +\d+\.\d\d → \d+\.\d\d +\d+\.\d\d → \d+\.\d\d/);
      expect(folders()).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  },
  COMMAND_LIMIT_MS + 20_000,
);
