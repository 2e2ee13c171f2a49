import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../src/db/schema";
import { parseSettings, type SettingsOf, sharedSettings, textOr, wholeNumber, workerSettings } from "../../src/platform/config";
import type { Db } from "../../src/platform/db";
import { unreachableByPostgres, unreachableDataDirMessage } from "../local/data-dir";
import { startPostgres } from "../local/postgres";
import { CommandError } from "./errors";

export const projectRoot = path.resolve(import.meta.dirname, "../..");

/** Environment plus .dev.vars (wrangler's local secrets file); the environment wins. */
export function localConfig(): Record<string, string | undefined> {
  const file = path.join(projectRoot, ".dev.vars");
  const fromFile = existsSync(file) ? parseEnv(readFileSync(file, "utf8")) : {};
  return { ...fromFile, ...process.env };
}

/** The CLI's settings: those it shares with the Worker (the same rules, src/platform/config.ts) and its own. */
const cliSettings = {
  ...sharedSettings,
  PORT: wholeNumber("PORT", "port number", 1, 65_535, 8787),
  CRM_DATA_DIR: textOr("CRM_DATA_DIR", ".data"),
  DB_PROXY_DELAY_MS: wholeNumber("DB_PROXY_DELAY_MS", "milliseconds", 0, 10_000, 0),
};
export type CliConfig = SettingsOf<typeof cliSettings>;

/** The local settings, parsed; a wrong one throws one ConfigError naming it and its allowed values. */
export const cliConfig = (source = localConfig()): CliConfig => parseSettings(cliSettings, source);

/**
 * Every setting the Worker reads: the keys of its settings schema (its string bindings, as in
 * .dev.vars.example). `npm run dev` hands each
 * one that is set, from the environment or .dev.vars, to the Worker.
 */
export const WORKER_VARS = Object.keys(workerSettings) as (keyof typeof workerSettings)[];

/** Settings of `npm run dev` itself, never passed to the Worker. */
export const DEV_VARS = ["PORT", "CRM_DATA_DIR", "DB_PROXY_DELAY_MS", "INSPECTOR_PORT", "DEV_CRON"] as const;

/** CRM_DATA_DIR: the embedded PostgreSQL (in `postgres/`), the demo token and the dev server's state file. */
export const dataRoot = (config: { CRM_DATA_DIR?: string } = localConfig()) => path.resolve(projectRoot, config.CRM_DATA_DIR || ".data");
export const dataDir = (config: { CRM_DATA_DIR?: string } = localConfig()) => path.join(dataRoot(config), "postgres");

/**
 * A Node-side database handle with the same configuration as `npm run dev`: DATABASE_URL when set
 * (e.g. Neon), otherwise the embedded PostgreSQL in CRM_DATA_DIR (started if not running).
 */
export async function openDatabase(): Promise<{ db: Db; url: string; close(): Promise<void> }> {
  const config = cliConfig();
  let url = config.DATABASE_URL;
  let stopServer = async () => {};
  if (!url) {
    const dir = dataDir(config);
    const blocked = unreachableByPostgres(dir);
    if (blocked) throw new CommandError(unreachableDataDirMessage(dir, blocked));
    const server = await startPostgres(dir);
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
