import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * A running `npm run dev` announces itself in its data dir (CRM_DATA_DIR), so operations on the same
 * local database (the admin CLI) can reach its Worker, e.g. to run the scheduled handler at once.
 */
const stateFile = (dataRoot: string) => path.join(dataRoot, "dev-server.json");

export interface DevServer {
  pid: number;
  port: number;
}

export function announceDevServer(dataRoot: string, server: DevServer) {
  writeFileSync(stateFile(dataRoot), `${JSON.stringify(server)}\n`, { mode: 0o600 });
}

export function withdrawDevServer(dataRoot: string) {
  rmSync(stateFile(dataRoot), { force: true });
}

/** The dev server of this data dir, if one is running (its process is alive). */
export function findDevServer(dataRoot: string): DevServer | undefined {
  const file = stateFile(dataRoot);
  if (!existsSync(file)) return undefined;
  try {
    const server = JSON.parse(readFileSync(file, "utf8")) as DevServer;
    process.kill(server.pid, 0);
    return server;
  } catch {
    return undefined;
  }
}

/**
 * Runs the Worker's scheduled handler once through wrangler's test endpoint (`wrangler dev
 * --test-scheduled`), as the cron trigger would. Resolves true when it answered.
 */
export async function runScheduled(port: number, cron?: string, timeoutMs = 30_000): Promise<boolean> {
  try {
    const query = cron === undefined ? "" : `?cron=${encodeURIComponent(cron)}`;
    const res = await fetch(`http://127.0.0.1:${port}/__scheduled${query}`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}
