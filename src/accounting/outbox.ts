import type { SQL } from "drizzle-orm";
import { accountingOutbox, type invoices } from "../db/schema";
import type { Db } from "../platform/db";
import type { Bindings, OutboxMessage } from "../platform/env";
import { plainDecimal } from "../platform/money";
import { databaseTag, sendBatches } from "../platform/queue";
import { insertFrom } from "../platform/sql-kit";

/**
 * The contract between order changes (writers) and accounting delivery (the consumer).
 * A row describes one accounting operation on the order's default invoice; it is written in the
 * same transaction (or single statement) as the change, and only when sync applies (see `syncApplies`).
 *
 * - create: the invoice is created remotely from its current state (client as customer, items as lines).
 * - update: a sparse update; `changes` holds only what this PATCH changed, in accounting terms:
 *     private_note  ← project description        due_date     ← deadline
 *     client_id     ← new customer (local id)    customer_memo ← client_notes
 *     discount      ← full discount state after the change, when any discount field changed
 *     tax           ← full tax state after the change, when tax_id / tax_exempt changed
 *     lines         ← true when an item was added, changed, moved or removed (the lines are resent from the current items)
 * - delete: the remote invoice is deleted.
 */
export type DiscountState = {
  amount: string;
  amount_type: "percentage" | "fixed_amount";
  discount_type: "before_tax" | "after_tax";
};
export type TaxState = { tax_id: number | null; rate: string | null; tax_exempt: boolean };

export type AccountingChange =
  | { operation: "create"; payload: Record<string, never> }
  | {
      operation: "update";
      payload: {
        changes: {
          private_note?: string | null;
          due_date?: string | null;
          client_id?: number;
          customer_memo?: string | null;
          discount?: DiscountState;
          tax?: TaxState;
          lines?: true;
        };
      };
    }
  | { operation: "delete"; payload: Record<string, never> };

/** The `changes` of an update row. */
export type AccountingUpdate = Extract<AccountingChange, { operation: "update" }>["payload"]["changes"];

type InvoiceTerms = Pick<typeof invoices.$inferSelect, "discountAmount" | "discountAmountType" | "discountType" | "taxId" | "taxExempt">;

/** The invoice row's discount (its check constraints keep the two columns to these values). */
export const discountState = (invoice: InvoiceTerms): DiscountState => ({
  amount: invoice.discountAmount,
  amount_type: invoice.discountAmountType as DiscountState["amount_type"],
  discount_type: invoice.discountType as DiscountState["discount_type"],
});

/** The invoice row's tax, given the rate of its tax (null: none, and then no tax id either). */
export const taxState = (invoice: InvoiceTerms, rate: string | null): TaxState => ({
  tax_id: rate === null ? null : invoice.taxId,
  rate: rate === null ? null : plainDecimal(rate),
  tax_exempt: invoice.taxExempt,
});

/**
 * The request's `quickbooks_enabled` when sent, otherwise the company-level flag (a boolean, or the SQL that
 * reads it when the decision is part of a single statement).
 */
export const syncApplies = <T = boolean>(requestFlag: boolean | undefined, companyFlag: T): boolean | T => requestFlag ?? companyFlag;

type OutboxRow<Id> = { companyId: number; projectId: Id; invoiceId: Id } & AccountingChange;

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
 * reading other CTEs of the statement.
 */
export const accountingChangeCte = (db: Db, row: OutboxRow<number | SQL>, from: SQL) =>
  insertFrom(db, "outbox", accountingOutbox, outboxValues(row), from);

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
