import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { ConfigError } from "../../src/platform/config";
import { openDatabase, projectRoot } from "./config";

/** Applies the drizzle-kit migrations in drizzle/ (idempotent: applied ones are skipped). */
export async function runMigrations(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await migrate(drizzle(client), { migrationsFolder: path.join(projectRoot, "drizzle") });
  } finally {
    await client.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url, close } = await openDatabase().catch((e: unknown) => {
    // A wrong setting: its one message, no stack trace.
    if (!(e instanceof ConfigError)) throw e;
    console.error(`error: ${e.message}`);
    process.exit(1);
  });
  try {
    await runMigrations(url);
    console.log(JSON.stringify({ migrated: true }));
  } finally {
    await close();
  }
}
