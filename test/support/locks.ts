import { randomUUID } from "node:crypto";
import pg from "pg";
import { expect, inject } from "vitest";
import { sql, type TestCompany, waitFor } from "./api";

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

/** One of the two resources whose batch races a single create for an external id. */
export interface RacedResource {
  /** The collection's path, `/clients`; its batch is `${path}/batch`. */
  path: string;
  /** The table its rows live in, for the held lock. */
  table: string;
  /** The noun the 409 names the holder with ("client", "order"). */
  noun: string;
  /** The id of a created row in a create's answer body. */
  idOf: (body: any) => number;
  /** A create's body taking the external id "raced". */
  create: Record<string, unknown>;
  /** A change of the second row that takes effect unless the batch is atomic; `changed(row)` says whether it did. */
  otherChange: Record<string, unknown>;
  /** The company's live rows with their external ids and whether the second row's change landed. */
  rows: (companyId: number) => Promise<{ id: number; external_id: string | null; changed: boolean }[]>;
}

/**
 * A batch of two updates (the first row's external id to "raced", a change of the second) made to wait
 * behind a held lock on the first row, after its snapshot, while a create takes "raced" and commits: the
 * update must be that item's 409 naming the row that took the id, and the second item 424 (atomic) or 200
 * (keyed: each item its own), with the rows to match. The race check both batch routes share.
 */
export async function expectBatchLosesExternalIdRace(
  co: TestCompany,
  resource: RacedResource,
  ids: { target: number; other: number },
  mode: "atomic" | "keyed",
) {
  const held = await holdRow(resource.table, ids.target);
  const updating = co.post(
    `${resource.path}/batch`,
    {
      atomic: mode === "atomic",
      items: [
        { method: "update", id: ids.target, data: { external_id: "raced" } },
        { method: "update", id: ids.other, data: resource.otherChange },
      ],
    },
    { headers: mode === "keyed" ? { "idempotency-key": randomUUID() } : {} },
  );
  await held.blocked(1);
  const created = await co.post(resource.path, resource.create);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const createdId = resource.idOf(created.body);
  await held.release();
  const res = await updating;
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data[0]).toMatchObject({
    index: 0,
    status: 409,
    body: {
      error: {
        code: "conflict",
        details: [{ field: "external_id", message: `Already the external id of ${resource.noun} ${createdId}` }],
      },
    },
  });
  expect(res.body.data[1].status).toBe(mode === "atomic" ? 424 : 200);
  const rows = await resource.rows(co.companyId);
  expect(rows.find((r) => r.id === ids.target)?.external_id).toBeNull();
  expect(rows.find((r) => r.id === ids.other)?.changed).toBe(mode !== "atomic");
  expect(rows.filter((r) => r.external_id === "raced").map((r) => r.id)).toEqual([createdId]);
}
