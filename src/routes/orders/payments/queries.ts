import type { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import type { Change } from "../../../changes/change";
import { payments } from "../../../db/schema/orders";
import { invalid } from "../../../http/errors";
import { columnFields } from "../../../http/openapi";
import type { OrderContents } from "../contents/read";
import { MAX_CONTENTS, type paymentFieldsSchema } from "../contents/schema";
import { insertRecord, updateRecord, writeContents } from "../contents/write";
import { orderTotals } from "../serialize";

type PaymentFields = z.infer<ReturnType<typeof paymentFieldsSchema>>;
/** Payments are recorded locally only: nothing is queued for the accounting system. */
const NO_LINES = { lines: false };

/** The payment's columns for the fields sent. */
const paymentColumns = (body: Partial<PaymentFields>) => columnFields(body, ["amount", "paidDate", "method", "reference"]);

/** Writes the payment change; the totals count the live payments as the change leaves them. */
async function write(
  change: Change,
  read: OrderContents,
  replaced: number | null,
  record: (ready: SQL, from: SQL) => ReturnType<typeof insertRecord>,
) {
  const row = await writeContents(change, read, NO_LINES, payments, (ready, from) => ({ record: record(ready, from) }));
  if (!row) return undefined;
  const live: { amount: string }[] = read.payments.filter((p) => p.id !== replaced);
  if (!row.record.deletedAt) live.push(row.record);
  return { ...row, totals: orderTotals({ invoice: row.invoice, taxRate: read.taxRate, lines: read.lines, payments: live }) };
}

export function insertPayment(change: Change, read: OrderContents, body: PaymentFields) {
  if (read.payments.length >= MAX_CONTENTS) {
    throw invalid("Too many payments", [{ field: "(order)", message: `An order holds at most ${MAX_CONTENTS} live payments` }]);
  }
  const values = { companyId: change.companyId, invoiceId: read.invoice.id, ...paymentColumns(body) };
  return write(change, read, null, (_ready, from) => insertRecord(change.db, payments, values, from));
}

export function updatePayment(change: Change, read: OrderContents<"payment">, body: Partial<PaymentFields>) {
  const id = read.target!.id;
  return write(change, read, id, (ready) => updateRecord(change.db, payments, id, paymentColumns(body), ready));
}

export function deletePayment(change: Change, read: OrderContents<"payment">) {
  const id = read.target!.id;
  return write(change, read, id, (ready) => updateRecord(change.db, payments, id, { deletedAt: sql`now()` }, ready));
}
