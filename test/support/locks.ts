import pg from "pg";
import { inject } from "vitest";
import { sql, waitFor } from "./api";

/**
 * A row locked `for update` by a transaction of the test's own, as a concurrent writer would hold it:
 * requests that need the row wait until `release()` commits. `blocked(n)` waits until `n` backends wait,
 * directly or through another waiting backend, for this one: requests that queued up behind the lock.
 */
export async function holdRow(table: string, id: number) {
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  await client.connect();
  await client.query("begin");
  await client.query(`select 1 from ${table} where id = $1 for update`, [id]);
  const pid: number = (await client.query("select pg_backend_pid() as pid")).rows[0].pid;
  return {
    blocked: (n: number) =>
      waitFor(
        `${n} backend(s) waiting behind the held ${table} row`,
        async () =>
          (
            await sql<{ n: number }>(
              `select count(*)::int as n from pg_stat_activity a
               where $1 = any(pg_blocking_pids(a.pid))
                  or exists (select 1 from pg_stat_activity b where $1 = any(pg_blocking_pids(b.pid)) and b.pid = any(pg_blocking_pids(a.pid)))`,
              [pid],
            )
          )[0].n,
        (waiting) => waiting >= n,
      ),
    /** Commits, after `change` (a statement of the holding transaction: the row changed while it was held). */
    release: async (change?: { text: string; params: unknown[] }) => {
      if (change) await client.query(change.text, change.params);
      await client.query("commit");
      await client.end();
    },
  };
}
