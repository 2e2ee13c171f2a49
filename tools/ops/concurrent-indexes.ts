import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { openDatabase, projectRoot } from "./config";

/**
 * `npm run db:indexes`: builds the indexes of the pending migrations with CREATE INDEX CONCURRENTLY,
 * one at a time and outside any transaction, so a large production table keeps taking writes while
 * they build. Migrations write them as CREATE INDEX IF NOT EXISTS, so `npm run db:migrate` afterwards
 * finds them built and only records the migration. Extensions and functions the pending migrations
 * create come first (an index may need one; migrations write functions as CREATE OR REPLACE, so creating
 * them early changes nothing). A concurrent build that failed leaves an invalid index: it is dropped
 * (concurrently) and built again.
 */
const migrationsDir = path.join(projectRoot, "drizzle");

interface JournalEntry {
  when: number;
  tag: string;
}

/** The statements of migrations not yet applied, in order. */
async function pendingStatements(client: pg.Client): Promise<string[]> {
  const journal = JSON.parse(readFileSync(path.join(migrationsDir, "meta/_journal.json"), "utf8")) as { entries: JournalEntry[] };
  const applied = await client
    .query<{ last: string | null }>(
      "select max(created_at)::text as last from drizzle.__drizzle_migrations where to_regclass('drizzle.__drizzle_migrations') is not null",
    )
    .catch(() => ({ rows: [{ last: null }] }));
  const last = Number(applied.rows[0]?.last ?? 0);
  return journal.entries
    .filter((e) => e.when > last)
    .flatMap((e) => readFileSync(path.join(migrationsDir, `${e.tag}.sql`), "utf8").split("--> statement-breakpoint"))
    .map((s) =>
      s
        .split("\n")
        .filter((line) => !line.trim().startsWith("--"))
        .join("\n")
        .trim(),
    )
    .filter(Boolean);
}

export async function buildIndexesConcurrently(databaseUrl: string, log: (line: string) => void = console.log) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const statements = await pendingStatements(client);
    const prerequisite = /^create (extension if not exists|or replace function)/i;
    for (const stmt of statements.filter((s) => prerequisite.test(s))) await client.query(stmt);
    for (const stmt of statements) {
      const m = /^create (unique )?index if not exists "([^"]+)"/i.exec(stmt);
      if (!m) continue;
      const name = m[2];
      const { rows } = await client.query<{ valid: boolean }>(
        "select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = $1",
        [name],
      );
      if (rows[0]?.valid) {
        log(`${name}: exists`);
        continue;
      }
      if (rows[0]) await client.query(`drop index concurrently if exists "${name}"`);
      const started = Date.now();
      try {
        await client.query(
          stmt.replace(
            /^create (unique )?index if not exists/i,
            (_, unique) => `CREATE ${unique ? "UNIQUE " : ""}INDEX CONCURRENTLY IF NOT EXISTS`,
          ),
        );
      } catch (e) {
        // A table (or column) that a pending migration creates: that migration builds the index itself.
        if ((e as { code?: string }).code === "42P01" || (e as { code?: string }).code === "42703") {
          log(`${name}: skipped, its table is created by a pending migration`);
          continue;
        }
        throw e;
      }
      log(`${name}: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    await client.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url, close } = await openDatabase();
  try {
    await buildIndexesConcurrently(url);
  } finally {
    await close();
  }
}
