import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../src/db/schema";
import type { Db } from "../../src/platform/db";
import { startPostgres } from "../local/postgres";

export const projectRoot = path.resolve(import.meta.dirname, "../..");

/** Environment plus .dev.vars (wrangler's local secrets file); the environment wins. */
export function localConfig(): Record<string, string | undefined> {
  const file = path.join(projectRoot, ".dev.vars");
  const fromFile = existsSync(file) ? parseEnv(readFileSync(file, "utf8")) : {};
  return { ...fromFile, ...process.env };
}

export const dataDir = (config = localConfig()) => path.resolve(projectRoot, config.CRM_DATA_DIR ?? ".data", "postgres");

/**
 * A Node-side database handle with the same configuration as `npm run dev`: DATABASE_URL when set
 * (e.g. Neon), otherwise the embedded PostgreSQL in CRM_DATA_DIR (started if not running).
 */
export async function openDatabase(): Promise<{ db: Db; url: string; close(): Promise<void> }> {
  const config = localConfig();
  let url = config.DATABASE_URL;
  let stopServer = async () => {};
  if (!url) {
    const server = await startPostgres(dataDir(config));
    url = server.url;
    stopServer = server.stop;
  }
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    db: drizzle(pool, { schema }),
    url,
    close: async () => {
      await pool.end();
      await stopServer();
    },
  };
}
