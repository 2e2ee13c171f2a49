import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DATABASE_FAULTS_WORKER_VARS, runDatabaseFaults } from "../tools/chaos/database-faults";
import { type Stack, startStack } from "../tools/local/stack";
import { runMigrations } from "../tools/ops/migrate";
import { type FakeQbo, startFakeQbo } from "./fakes/qbo";
import { startWebhookReceiver, type WebhookReceiver } from "./fakes/webhook-receiver";
import { scanLog } from "./support/log-scan";
import { type RunningWorker, startWorker } from "./support/worker";

/**
 * PostgreSQL stopped, killed and restarted under concurrent writers on every write path (the run is
 * tools/chaos/database-faults.ts, which `npm run chaos` reports): on its own PostgreSQL, since the
 * suite's is shared by the files running beside this one.
 */
let dir: string;
let stack: Stack;
let worker: RunningWorker;
let qbo: FakeQbo;
let receiver: WebhookReceiver;
const restarts: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "crm-db-faults-"));
  chmodSync(dir, 0o755); // PostgreSQL runs as the `postgres` user and must reach its data dir
  // Kept running as `npm run dev` keeps it: restarted if killed.
  stack = await startStack({ dataDir: path.join(dir, "postgres"), redis: "none", onPostgresRestart: (line) => restarts.push(line) });
  await runMigrations(stack.postgres!.url);
  [qbo, receiver] = await Promise.all([startFakeQbo(), startWebhookReceiver()]);
  worker = await startWorker({
    script: inject("workerScript"),
    bindings: { ...stack.vars, ...DATABASE_FAULTS_WORKER_VARS },
    logFile: path.join(dir, "worker.log"),
  });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([qbo?.stop(), receiver?.stop()]);
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("database faults under concurrent writers", () => {
  it("every failure is a 503 with Retry-After, never a 500; no acknowledged write is lost, no order half-written, every delivery made", {
    timeout: 420_000,
  }, async () => {
    const report = await runDatabaseFaults({
      api: `${worker.url}/api/v1`,
      postgres: stack.postgres!,
      dataDir: path.join(dir, "postgres"),
      qbo,
      receiver,
      logFile: path.join(dir, "worker.log"),
      runCron: () => worker.scheduled(),
    });
    const summary = JSON.stringify(report, null, 1);
    // Every answer kept its promise: a 503 with Retry-After at worst, within the deadline.
    expect(report.broken, summary).toEqual([]);
    // The faults hit every writer, and every writer also got through.
    for (const counts of Object.values(report.answers)) {
      expect(counts["503"] ?? 0, summary).toBeGreaterThan(0);
      expect(counts["200"] ?? 0, summary).toBeGreaterThan(0);
    }
    expect(Object.keys(report.answers)).toHaveLength(4);
    // The conflicting PATCHes and item writes took their locked retry (a WebSocket transaction) too.
    expect(report.lockedRetries, summary).toBeGreaterThan(0);
    expect(report.lost, summary).toEqual([]);
    expect(report.halfWritten, summary).toBe(0);
    expect(report.keyedDuplicates, summary).toBe(0);
    // Every delivery of an acknowledged write went out through the queues, retried while the database was
    // away; those of writes that committed while their answer was lost, with the cron pass. All of them succeeded.
    expect(report.webhooks.ofAcknowledgedNotByQueues, summary).toBe(0);
    expect(report.accounting.ofAcknowledgedNotByQueues, summary).toBe(0);
    expect(report.webhooks.notSucceeded, summary).toBe(0);
    expect(report.webhooks.delivered, summary).toBe(report.webhooks.deliveries);
    expect(report.accounting.notDone, summary).toBe(0);
    // The killed postmaster came back by itself, said in one line.
    expect(restarts, summary).toEqual([expect.stringMatching(/^PostgreSQL exited \(SIGKILL\) and was restarted on port \d+ in \d+ ms$/)]);
    expect(scanLog(path.join(dir, "worker.log"))).toEqual([]);
  });
});
