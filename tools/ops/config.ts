import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { z } from "zod";
import * as schema from "../../src/db/schema";
import { parseSettings, sharedSettings, wholeNumber } from "../../src/platform/config";
import type { AnyDb } from "../../src/platform/db";
import { startPostgres } from "../local/postgres";

export const projectRoot = path.resolve(import.meta.dirname, "../..");

/** Environment plus .dev.vars (wrangler's local secrets file); the environment wins. */
export function localConfig(): Record<string, string | undefined> {
  const file = path.join(projectRoot, ".dev.vars");
  const fromFile = existsSync(file) ? parseEnv(readFileSync(file, "utf8")) : {};
  return { ...fromFile, ...process.env };
}

/** The CLI's settings: those it shares with the Worker (the same schema, src/platform/config.ts) and its own. */
const cliSettings = z.object({
  ...sharedSettings,
  PORT: wholeNumber("PORT", "port number", 1, 65_535, 8787),
  CRM_DATA_DIR: z.preprocess((v) => v || undefined, z.string().default(".data")),
  DB_PROXY_DELAY_MS: wholeNumber("DB_PROXY_DELAY_MS", "milliseconds", 0, 10_000, 0),
});
export type CliConfig = z.output<typeof cliSettings>;

/** The local settings, parsed; a wrong one throws one ConfigError naming it and its allowed values. */
export const cliConfig = (source = localConfig()): CliConfig => parseSettings(cliSettings, source);

export const dataDir = (config: { CRM_DATA_DIR?: string } = cliConfig()) =>
  path.resolve(projectRoot, config.CRM_DATA_DIR || ".data", "postgres");

/**
 * A Node-side database handle with the same configuration as `npm run dev`: DATABASE_URL when set
 * (e.g. Neon), otherwise the embedded PostgreSQL in CRM_DATA_DIR (started if not running).
 */
export async function openDatabase(): Promise<{ db: AnyDb; url: string; close(): Promise<void> }> {
  const config = cliConfig();
  let url = config.DATABASE_URL;
  let stopServer = async () => {};
  if (!url) {
    const server = await startPostgres(dataDir(config));
    url = server.url;
    stopServer = server.stop;
  }
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    db: drizzle(pool, { schema }) as unknown as AnyDb,
    url,
    close: async () => {
      await pool.end();
      await stopServer();
    },
  };
}
