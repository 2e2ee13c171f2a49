import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startStack } from "../tools/local/stack";
import { runMigrations } from "../tools/ops/migrate";
import { scanLog } from "./support/log-scan";
import { buildWorker, startWorker } from "./support/worker";

declare module "vitest" {
  export interface ProvidedContext {
    apiUrl: string;
    databaseUrl: string;
    workerScript: string;
    workerBindings: Record<string, string>;
    logFile: string;
    redisPid: number;
    redisPort: number;
    tmpDir: string;
  }
}

/**
 * Starts the real stack once for the suite: a fresh embedded PostgreSQL, the local Neon endpoint (SQL over HTTP and the ws proxy),
 * redis-server behind the Upstash-protocol server (required: tests never fall back), and the
 * Worker bundle in workerd. Test files talk to it over HTTP only.
 */
export default async function setup(project: TestProject) {
  const tmp = mkdtempSync(path.join(tmpdir(), "crm-test-"));
  chmodSync(tmp, 0o755); // PostgreSQL runs as the `postgres` user and must reach its data dir
  const stack = await startStack({ dataDir: path.join(tmp, "postgres"), redis: "required" });
  try {
    await runMigrations(stack.postgres!.url);
    mkdirSync(path.join(tmp, "worker"));
    const script = buildWorker(path.join(tmp, "worker"));
    const logFile = path.join(tmp, "worker.log");
    // Tokens are checked on every request here (no per-isolate cache), so a revocation takes effect at
    // once in every test; test/token-cache.test.ts runs a Worker with the cache on.
    const bindings = { ...stack.vars, TOKEN_CACHE_TTL_MS: "0" };
    const worker = await startWorker({ script, bindings, logFile });

    project.provide("apiUrl", `${worker.url}/api/v1`);
    project.provide("databaseUrl", stack.postgres!.url);
    project.provide("workerScript", script);
    project.provide("workerBindings", bindings);
    project.provide("logFile", logFile);
    project.provide("redisPid", stack.redis!.process.pid!);
    project.provide("redisPort", stack.redis!.port);
    project.provide("tmpDir", tmp);

    return async () => {
      await worker.dispose();
      // Everything the suite made the Worker log: no secrets, digests, SQL parameters or stack traces.
      const problems = scanLog(logFile);
      await stack.stop();
      rmSync(tmp, { recursive: true, force: true });
      if (problems.length) {
        // Vitest reports a teardown error but keeps exit code 0: set it, so the run fails.
        process.exitCode = 1;
        throw new Error(`Worker log breaks the logging rules (${problems.length} lines):\n${problems.slice(0, 20).join("\n")}`);
      }
    };
  } catch (e) {
    await stack.stop();
    throw e;
  }
}
