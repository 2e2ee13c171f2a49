import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import { accountingOutbox } from "../../../db/schema/accounting";
import { companies } from "../../../db/schema/companies";
import { decorations } from "../../../db/schema/decorations";
import { artworks, invoiceItems, invoices, payments, projects, taxes } from "../../../db/schema/orders";
import type { Db } from "../../../platform/db";
import { jsonRows, tableRows } from "../../../platform/sql-kit";
import { defaultInvoiceOf, liveProjects } from "../queries";

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
 * positions), payments, the number of live artworks, and the addressed row (`target`); for an item, its
 * live decorations and the order's live artwork ids. `lock` first
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
      // An item's write reads its live decorations (in order) and the order's live artworks (a decoration's artwork is one of them).
      decorations:
        target?.kind === "item"
          ? tableRows(
              decorations,
              and(eq(decorations.invoiceItemId, target.id), eq(decorations.companyId, companyId), isNull(decorations.deletedAt)),
              sql`${decorations.position}, ${decorations.id}`,
            )
          : sql<(typeof decorations.$inferSelect)[]>`'[]'::json`.mapWith(() => []),
      artworkIds:
        target?.kind === "item"
          ? sql<
              number[]
            >`(select coalesce(json_agg(${artworks.id}), '[]') from ${artworks} where ${artworks.projectId} = ${projects.id} and ${artworks.deletedAt} is null)`
          : sql<number[]>`'[]'::json`,
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
  return { ...row, target: (row.target as ContentsRow<K>[])[0] as ContentsRow<K> | undefined, artworkIds: new Set(row.artworkIds) };
}
export type OrderContents<K extends ContentsKind = ContentsKind> = NonNullable<Awaited<ReturnType<typeof readContents<K>>>>;

/** The addressed row's name in a 404. */
export const WHAT: Record<ContentsKind, string> = { item: "Item", payment: "Payment", artwork: "Artwork" };
