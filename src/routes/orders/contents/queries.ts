import { and, eq, isNull, type SQL, sql, type WithSubquery } from "drizzle-orm";
import type { Context } from "hono";
import { accountingChangeCte, notifyOutbox } from "../../../accounting/outbox";
import { accountingOutbox, artworks, companies, invoiceItems, invoices, payments, projects, taxes } from "../../../db/schema";
import type { AppEnv } from "../../../http/context";
import { notFound } from "../../../http/errors";
import { withIdempotency } from "../../../http/idempotency";
import type { Db } from "../../../platform/db";
import { insertFrom, jsonRows, tableRows } from "../../../platform/sql-kit";
import { publishWebhookEvent, type WrittenEvent, webhookEventCte } from "../../../webhooks/events";
import { defaultInvoiceOf, liveProjects } from "../queries";
import { renderOrderObject } from "../webhook-object";

/*
 * The order's contents (items, payments, artworks) are written in two statements: a read of the order
 * as it is (live contents, the invoice's row version) and ONE write statement that applies the change
 * only if the invoice row is still that version. Every contents write also updates the invoice row
 * (its `updated_at`), so the invoice row is the order's serialization point: a write that commits in
 * between moves the version on, the second statement then writes nothing, and the change is redone
 * under a row lock in a transaction. What the read saw is therefore what the write changed, which
 * keeps item positions dense and unique and makes the answered totals exact under concurrency.
 */

export type ContentsKind = "item" | "payment" | "artwork";
const tables = { item: invoiceItems, payment: payments, artwork: artworks } as const;
type Tables = typeof tables;
export type ContentsRow<K extends ContentsKind> = Tables[K]["$inferSelect"];

/** The row a PATCH or DELETE addresses, scoped to the order: another order's or company's row is not found. */
function targetOf(kind: ContentsKind, companyId: number, id: number): SQL {
  switch (kind) {
    case "item":
      return and(
        eq(invoiceItems.id, id),
        eq(invoiceItems.invoiceId, invoices.id),
        eq(invoiceItems.companyId, companyId),
        isNull(invoiceItems.deletedAt),
      )!;
    case "payment":
      return and(eq(payments.id, id), eq(payments.invoiceId, invoices.id), eq(payments.companyId, companyId), isNull(payments.deletedAt))!;
    case "artwork":
      return and(eq(artworks.id, id), eq(artworks.projectId, projects.id), eq(artworks.companyId, companyId), isNull(artworks.deletedAt))!;
  }
}

/**
 * The company's live order with what a contents write needs, in one query: the invoice row and its
 * version (xmin), the tax rate, whether accounting sync applies, the live items (amounts and
 * positions), payments, the number of live artworks, and the addressed row (`target`). `lock` first
 * locks the project and invoice rows (the transactional fallback). Undefined when the order is not found.
 */
export async function readContents<K extends ContentsKind>(
  db: Db,
  companyId: number,
  orderId: number,
  target: { kind: K; id: number } | undefined,
  lock: boolean,
) {
  const query = db
    .select({
      projectId: projects.id,
      invoice: invoices,
      version: sql<string>`${invoices}.xmin::text`,
      taxRate: taxes.rate,
      // The company setting, or the invoice was synced before (as DELETE /orders decides).
      sync: sql<boolean>`(${companies.accountingSyncEnabled} or exists (select 1 from ${accountingOutbox} where ${accountingOutbox.invoiceId} = ${invoices.id}))`,
      lines: jsonRows(
        { id: invoiceItems.id, position: invoiceItems.position, quantity: invoiceItems.quantity, unit_price: invoiceItems.unitPrice },
        sql`(select ${invoiceItems.id}, ${invoiceItems.position}, ${invoiceItems.quantity}, ${invoiceItems.unitPrice} from ${invoiceItems}
             where ${invoiceItems.invoiceId} = ${invoices.id} and ${invoiceItems.deletedAt} is null order by ${invoiceItems.position}, ${invoiceItems.id})`,
      ),
      payments: jsonRows(
        { id: payments.id, amount: payments.amount },
        sql`(select ${payments.id}, ${payments.amount} from ${payments} where ${payments.invoiceId} = ${invoices.id} and ${payments.deletedAt} is null)`,
      ),
      artworkCount: sql<number>`(select count(*)::int from ${artworks} where ${artworks.projectId} = ${projects.id} and ${artworks.deletedAt} is null)`,
      target: target
        ? tableRows(tables[target.kind], targetOf(target.kind, companyId, target.id), sql`1`)
        : sql<never[]>`'[]'::json`.mapWith(() => []),
    })
    .from(projects)
    .innerJoin(invoices, defaultInvoiceOf(projects.id))
    .innerJoin(companies, eq(companies.id, projects.companyId))
    .leftJoin(taxes, eq(taxes.id, invoices.taxId))
    .where(and(liveProjects(companyId), eq(projects.id, orderId)));
  if (lock) {
    // The lock first, on its own: a statement that waits for a row lock still reads everything else
    // from the snapshot it started with, so the contents read must be the next statement.
    await db
      .select({ id: invoices.id })
      .from(projects)
      .innerJoin(invoices, defaultInvoiceOf(projects.id))
      .where(and(liveProjects(companyId), eq(projects.id, orderId)))
      .for("update", { of: [projects, invoices] });
  }
  const [row] = await query;
  if (!row) return undefined;
  return { ...row, target: (row.target as ContentsRow<K>[])[0] as ContentsRow<K> | undefined };
}
export type OrderContents<K extends ContentsKind = ContentsKind> = NonNullable<Awaited<ReturnType<typeof readContents<K>>>>;

/**
 * The CTEs every contents write starts with: `invoice` updates the invoice's `updated_at` only if the
 * row is still the version `read` saw (no row otherwise, and then nothing else is written), `project`
 * bumps the order's `updated_at`, `outbox` queues an accounting update that resends the invoice's
 * lines when `lines` is set and sync applies, and the webhook event says the order was updated. `ready` is the condition the change itself is written under.
 */
export function contentsWrite(db: Db, companyId: number, read: OrderContents, opts: { lines: boolean }) {
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
      .returning({ id: projects.id }),
  );
  const outbox =
    opts.lines && read.sync
      ? accountingChangeCte(
          db,
          { companyId, projectId: read.projectId, invoiceId: read.invoice.id, operation: "update", payload: { changes: { lines: true } } },
          sql`from ${invoice}`,
        )
      : undefined;
  const event = webhookEventCte(
    db,
    { companyId, type: "order.updated", resourceType: "order", resourceId: read.projectId },
    sql`from ${project}`,
  );
  return {
    invoice,
    ready,
    ctes: [projectLock, invoice, project, ...(outbox ? [outbox] : []), ...event.ctes] as const,
    webhook: event.written,
    outboxId: outbox ? sql<number | null>`(select ${outbox.id} from ${outbox})`.mapWith(Number) : sql<null>`null`,
  };
}

/**
 * Runs a contents change for a request: read, then `write` (which validates and writes one statement,
 * answering undefined when the invoice moved on in between). On undefined it runs again in a
 * transaction that locks the invoice row before it reads, where the write cannot miss. 404 for a
 * missing order or row. A written outbox row is handed to delivery after the response.
 */
type Written = { outboxId: number | null; webhook: WrittenEvent | null };

/** After the commit: the outbox row to accounting delivery, the event (with the order as it is now) to webhook delivery. */
function afterContentsCommit(c: Context<AppEnv>, orderId: number, result: Written) {
  if (result.outboxId !== null) notifyOutbox(c.env, [result.outboxId], c.var.defer);
  const { companyId } = c.var.auth;
  publishWebhookEvent(c, result.webhook, () =>
    renderOrderObject(c.var.db, { companyId, type: "order.updated", resourceId: String(orderId) }),
  );
}

export async function changeContents<K extends ContentsKind, R extends Written>(
  c: Context<AppEnv>,
  orderId: number,
  target: { kind: K; id: number } | undefined,
  write: (db: Db, companyId: number, read: OrderContents<K>) => Promise<R | undefined>,
  options: { tx?: Db } = {},
): Promise<R> {
  const { db, logger, auth } = c.var;
  const attempt = async (conn: Db, lock: boolean) => {
    const read = await readContents(conn, auth.companyId, orderId, target, lock);
    if (!read) throw notFound("Order");
    if (target && !read.target) throw notFound(WHAT[target.kind]);
    // The contents routes are readsFirst: the read ran while the rate limiter answered; the write waits for it.
    await c.var.admitted();
    return write(conn, auth.companyId, read);
  };
  // Inside a caller's transaction: read under the row lock at once; the caller notifies after its commit.
  if (options.tx) {
    const locked = await attempt(options.tx, true);
    if (locked === undefined) throw new Error("invoice changed under its row lock");
    return locked;
  }
  let result = await attempt(db, false);
  if (result === undefined) {
    logger.info("order changed between read and write; writing again under its invoice's row lock", { order_id: orderId });
    // An interactive transaction (a session of its own): the checks between read and write run here, in code.
    result = await c.var.transaction(async (tx) => {
      const locked = await attempt(tx, true);
      if (locked === undefined) throw new Error("invoice changed under its row lock");
      return locked;
    });
  }
  afterContentsCommit(c, orderId, result);
  return result;
}

/**
 * A contents POST (a new item, payment or artwork), idempotent with `Idempotency-Key`: keyed, the
 * change runs under the invoice's row lock inside the key's transaction and its outbox row is handed
 * to delivery after that commit; without a key it is `changeContents` as is.
 */
export function createContents<R extends Written, T>(
  c: Context<AppEnv>,
  orderId: number,
  write: (db: Db, companyId: number, read: OrderContents) => Promise<R | undefined>,
  respond: (result: R) => T,
) {
  return withIdempotency(c, async (db, keyed) => {
    const result = await changeContents(c, orderId, undefined, write, keyed ? { tx: db } : {});
    return {
      status: 200 as const,
      body: respond(result),
      afterCommit: keyed ? () => afterContentsCommit(c, orderId, result) : undefined,
    };
  });
}

export const WHAT: Record<ContentsKind, string> = { item: "Item", payment: "Payment", artwork: "Artwork" };

/**
 * The write statement: the common CTEs (`contentsWrite`), any `extra` CTEs and the changed `record`
 * (a CTE named `record` returning whole rows of `table`), all written under `ready`. Answers the
 * invoice row after the bump and the record, or undefined when the invoice moved on since `read`
 * (then nothing was written).
 */
export async function writeContents<T extends ContentsTable>(
  db: Db,
  companyId: number,
  read: OrderContents,
  opts: { lines: boolean },
  _table: T,
  build: (ready: SQL, from: SQL) => { record: WithSubquery; extra?: WithSubquery[] },
) {
  const base = contentsWrite(db, companyId, read, opts);
  const { record, extra = [] } = build(base.ready, sql`from ${base.invoice}`);
  // The record CTE's columns are its table's (typed by `T` below); drizzle only needs it as a CTE here.
  const cte = record as ReturnType<typeof insertFrom<"record", typeof payments>>;
  const [row] = await db
    .with(...base.ctes, ...extra, cte)
    .select({ invoice: base.invoice._.selectedFields, record: cte._.selectedFields, outboxId: base.outboxId, webhook: base.webhook })
    .from(base.invoice)
    .innerJoin(cte, sql`true`);
  return row as
    | { invoice: typeof invoices.$inferSelect; record: T["$inferSelect"]; outboxId: number | null; webhook: WrittenEvent | null }
    | undefined;
}

type ContentsTable = typeof invoiceItems | typeof payments | typeof artworks;

/** `insert into <table> … select … from <invoice>` as the `record` CTE. */
export const insertRecord = <T extends ContentsTable>(db: Db, table: T, values: Values<T>, from: SQL): WithSubquery =>
  insertFrom(db, "record", table, values as never, from);
type Values<T extends ContentsTable> = { [K in keyof T["$inferInsert"]]?: T["$inferInsert"][K] | SQL };

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
