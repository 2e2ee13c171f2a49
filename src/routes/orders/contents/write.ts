import { and, eq, type SQL, sql, type WithSubquery } from "drizzle-orm";
import type { Change } from "../../../changes/change";
import { eventOf } from "../../../changes/effects";
import type { decorations } from "../../../db/schema/decorations";
import { type artworks, type invoiceItems, invoices, type payments, projects } from "../../../db/schema/orders";
import type { Db } from "../../../platform/db";
import { insertFrom } from "../../../platform/sql-kit";
import { orderEvents } from "../events";
import type { OrderContents } from "./read";

type ContentsTable = typeof invoiceItems | typeof payments | typeof artworks | typeof decorations;
type Values<T extends ContentsTable> = { [K in keyof T["$inferInsert"]]?: T["$inferInsert"][K] | SQL };

/**
 * The write statement of a contents change. `invoice` updates the invoice's `updated_at` only if the
 * row is still the version `read` saw (no row otherwise, and then nothing else is written); `project`
 * bumps the order's `updated_at`; `build` adds the changed `record` (a CTE named `record` returning whole
 * rows of `table`) and any `extra` CTEs, written under `ready`. With it: an accounting update that
 * resends the invoice's lines when `lines` is set and sync applies, and the order's `order.updated`
 * event (with `previous` as its `previous_attributes` when given). Answers the project and invoice rows after the bump and the record, or undefined when the invoice moved on
 * since `read` (then nothing was written).
 */
export async function writeContents<T extends ContentsTable>(
  change: Change,
  read: OrderContents,
  opts: { lines: boolean; previous?: SQL },
  _table: T,
  build: (ready: SQL, from: SQL) => { record: WithSubquery; extra?: WithSubquery[] },
) {
  const { db } = change;
  const now = sql`now()`;
  // The project row is locked before the invoice row, the order PATCH and DELETE /orders/{id} lock them in,
  // so a contents write and an order write wait for each other instead of deadlocking.
  const projectLock = db
    .$with("project_lock")
    .as(db.select({ id: projects.id }).from(projects).where(eq(projects.id, read.projectId)).for("update"));
  const invoice = db.$with("invoice").as(
    db
      .update(invoices)
      .set({ updatedAt: now })
      .where(
        and(eq(invoices.id, read.invoice.id), sql`${invoices}.xmin = ${read.version}::xid`, sql`exists (select 1 from ${projectLock})`),
      )
      .returning(),
  );
  const ready = sql`exists (select 1 from ${invoice})`;
  const project = db.$with("project").as(
    db
      .update(projects)
      .set({ updatedAt: now })
      .where(and(eq(projects.id, read.projectId), ready))
      .returning(),
  );
  const { record, extra = [] } = build(ready, sql`from ${invoice}`);
  // The record CTE's columns are its table's (typed by `T` below); drizzle only needs it as a CTE here.
  const cte = record as ReturnType<typeof insertFrom<"record", typeof payments>>;
  const [row] = await change.write(
    {
      with: [projectLock, invoice, project, ...extra, cte],
      accounting:
        opts.lines && read.sync
          ? [
              {
                projectId: read.projectId,
                invoiceId: read.invoice.id,
                operation: "update",
                payload: { changes: { lines: true } },
                from: invoice,
              },
            ]
          : [],
      events: [eventOf(orderEvents, "order.updated", { id: read.projectId, from: project, previous: opts.previous })],
    },
    (q) =>
      q
        .select({ project: project._.selectedFields, invoice: invoice._.selectedFields, record: cte._.selectedFields })
        .from(invoice)
        .innerJoin(project, sql`true`)
        .innerJoin(cte, sql`true`),
  );
  return row as { project: typeof projects.$inferSelect; invoice: typeof invoices.$inferSelect; record: T["$inferSelect"] } | undefined;
}

/** `insert into <table> … select … from <invoice>` as the `record` CTE. */
export const insertRecord = <T extends ContentsTable>(db: Db, table: T, values: Values<T>, from: SQL): WithSubquery =>
  insertFrom(db, "record", table, values as never, from);

/** `update <table> set …, updated_at = now() where id = <id> and <ready> returning *` as the `record` CTE. */
export function updateRecord<T extends ContentsTable>(db: Db, table: T, id: number, values: Values<T>, ready: SQL): WithSubquery {
  const t = table as typeof payments;
  return db.$with("record").as(
    db
      .update(t)
      .set({ ...(values as Values<typeof payments>), updatedAt: sql`now()` })
      .where(and(eq(t.id, id), ready))
      .returning(),
  );
}
