import type { SQL } from "drizzle-orm";
import { accountingOutbox } from "../db/schema/accounting";
import type { Db } from "../platform/db";
import type { Bindings, OutboxMessage } from "../platform/env";
import { databaseTag, sendBatches } from "../platform/queue";
import { insertFrom } from "../platform/sql-kit";
import type { AccountingChange } from "./payload";

/*
 * The outbox rows' writers (in the change's own statement or transaction) and their hand-off to the
 * accounting queue after commit. What a row says: payload.ts.
 */

type OutboxRow<Id> = { companyId: number | SQL; projectId: Id; invoiceId: Id } & AccountingChange;

/** The outbox row's columns: the one definition both writers below use. */
const outboxValues = <Id>(row: OutboxRow<Id>) => ({
  companyId: row.companyId,
  projectId: row.projectId,
  invoiceId: row.invoiceId,
  operation: row.operation,
  payload: row.payload,
});

/** Writes the outbox row inside the caller's transaction; returns its id. */
export async function recordAccountingChange(tx: Db, row: OutboxRow<number>): Promise<number> {
  const [inserted] = await tx.insert(accountingOutbox).values(outboxValues(row)).returning({ id: accountingOutbox.id });
  return inserted.id;
}

/**
 * The same row as a CTE (`outbox`, returning the row) of a single-statement write: written once per row
 * of `from` (none when it is empty), so it lands only when the statement's change does. Ids may be SQL
 * reading other CTEs of the statement; `suffix` tells apart several such CTEs in one statement.
 */
export const accountingChangeCte = (db: Db, row: OutboxRow<number | SQL>, from: SQL, suffix = "") =>
  insertFrom(db, `outbox${suffix}`, accountingOutbox, outboxValues(row), from);

/** Hands outbox rows to the queue; used after commit and by the cron re-enqueue pass. */
export async function enqueueOutbox(env: Bindings, outboxIds: number[], delaySeconds?: number): Promise<void> {
  const queue = env.ACCOUNTING_QUEUE;
  if (!queue || !outboxIds.length) return;
  const database = databaseTag(env.DATABASE_URL);
  await sendBatches(
    queue,
    outboxIds.map((id): OutboxMessage => ({ outbox_id: id, database })),
    delaySeconds,
  );
}

/**
 * Called after the transaction that wrote outbox rows has committed, with their ids, to hand them
 * to delivery without delaying the response (the Queue producer). A failed or skipped send loses
 * nothing: the cron pass re-sends rows still pending after a few minutes.
 */
export function notifyOutbox(env: Bindings, outboxIds: number[], defer: (p: Promise<unknown>) => void): void {
  if (outboxIds.length && env.ACCOUNTING_QUEUE) defer(enqueueOutbox(env, outboxIds));
}
