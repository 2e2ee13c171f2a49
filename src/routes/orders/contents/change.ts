import type { Context } from "hono";
import { applyChange, applyIdempotentChange, type Change } from "../../../changes/change";
import type { invoices, projects } from "../../../db/schema/orders";
import type { InvoiceTotals } from "../../../domain/totals";
import type { AppEnv } from "../../../http/context";
import { notFound } from "../../../http/errors";
import { orderEvents } from "../events";
import { serializeInvoice, serializeProject } from "../serialize";
import { type ContentsKind, type OrderContents, readContents, WHAT } from "./read";

/** What every contents write answers: the order's rows after it, and the invoice's totals. */
type Written = { project: typeof projects.$inferSelect; invoice: typeof invoices.$inferSelect; totals: InvoiceTotals };

/**
 * A contents change for a request: read the order (`readContents`), then `write` (which validates and
 * writes one statement, `writeContents`, answering undefined when the invoice moved on in between),
 * retried under the invoice's row lock when it missed (read.ts says why that is exact). 404 for a
 * missing order or row. The order's event carries the order as this write left it.
 */
async function contentsChange<K extends ContentsKind, R extends Written>(
  change: Change,
  orderId: number,
  target: { kind: K; id: number } | undefined,
  write: (change: Change, read: OrderContents<K>) => Promise<R | undefined>,
): Promise<R> {
  const result = await change.readThenWrite(
    async (attempt) => {
      const read = await readContents(attempt.db, attempt.companyId, orderId, target, attempt.locked);
      if (!read) throw notFound("Order");
      if (target && !read.target) throw notFound(WHAT[target.kind]);
      return write(attempt, read);
    },
    {
      log: "order changed between read and write; writing again under its invoice's row lock",
      fields: { order_id: orderId },
      failed: "invoice changed under its row lock",
    },
  );
  change.objects(orderEvents, () =>
    JSON.stringify({ project: serializeProject(result.project), invoice: serializeInvoice(result.invoice, result.totals) }),
  );
  return result;
}

/** A contents PATCH or DELETE: the change to the row `target` addresses. */
export const changeContents = <K extends ContentsKind, R extends Written>(
  c: Context<AppEnv>,
  orderId: number,
  target: { kind: K; id: number },
  write: (change: Change, read: OrderContents<K>) => Promise<R | undefined>,
): Promise<R> => applyChange(c, (change) => contentsChange(change, orderId, target, write));

/**
 * A contents POST (a new item, payment or artwork; a new decoration of the item `target`), idempotent
 * with `Idempotency-Key`: keyed, the change runs under the invoice's row lock inside the key's transaction.
 */
export const createContents = <R extends Written, T, K extends ContentsKind = ContentsKind>(
  c: Context<AppEnv>,
  orderId: number,
  write: (change: Change, read: OrderContents<K>) => Promise<R | undefined>,
  respond: (result: R) => T,
  target?: { kind: K; id: number },
) =>
  applyIdempotentChange(c, async (change) => ({
    status: 200 as const,
    body: respond(await contentsChange(change, orderId, target, write)),
  }));
