import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { Change } from "../../../changes/change";
import { decorations } from "../../../db/schema/decorations";
import { invoiceItems } from "../../../db/schema/orders";
import type { LineAmounts } from "../../../domain/totals";
import { invalid } from "../../../http/errors";
import { columnFields } from "../../../http/openapi";
import { renumber, repositionCte } from "../contents/positions";
import type { OrderContents } from "../contents/read";
import type { ItemPatch } from "../contents/schema";
import { MAX_CONTENTS, newItemQuantity, sizesTotal } from "../contents/schema";
import { insertRecord, updateRecord, writeContents } from "../contents/write";
import { orderTotals } from "../serialize";

type Read = OrderContents<"item">;
type Item = typeof invoiceItems.$inferSelect;

/** The item CTE renumbering the invoice's other live items. */
const repositionItems = (change: Change, read: OrderContents, moves: { id: number; position: number }[], ready: SQL) =>
  repositionCte(change.db, invoiceItems, eq(invoiceItems.invoiceId, read.invoice.id), moves, ready);

/** Every item write changes the invoice's lines in the accounting system. */
const LINES = { lines: true };

const tooMany = () =>
  invalid("Too many items", [{ field: "(order)", message: `An order holds at most ${MAX_CONTENTS} live items; delete one first` }]);

/** The live lines after the change: `replace` (or append) one item's amounts, or drop one. */
function linesAfter(read: OrderContents, change: { id: number | null; line?: LineAmounts }): LineAmounts[] {
  const kept = read.lines.filter((l) => l.id !== change.id);
  return change.line ? [...kept, change.line] : kept;
}

export async function insertItem(
  change: Change,
  read: OrderContents,
  body: {
    title: string;
    description?: string | null;
    quantity?: string;
    unit_price: string;
    sizes?: Record<string, number> | null;
    position?: number;
  },
) {
  if (read.lines.length >= MAX_CONTENTS) throw tooMany();
  const quantity = newItemQuantity(body);
  const row = await writeContents(change, read, LINES, invoiceItems, (ready, from) => {
    const { moves, place } = renumber(read.lines, null, body.position ?? MAX_CONTENTS);
    const values = {
      companyId: change.companyId,
      invoiceId: read.invoice.id,
      title: body.title,
      description: body.description ?? null,
      quantity,
      unitPrice: body.unit_price,
      sizes: body.sizes ?? null,
      position: place,
    };
    return { record: insertRecord(change.db, invoiceItems, values, from), extra: repositionItems(change, read, moves, ready) };
  });
  if (!row) return undefined;
  const totals = orderTotals({
    invoice: row.invoice,
    taxRate: read.taxRate,
    lines: linesAfter(read, { id: null, line: { quantity, unit_price: body.unit_price } }),
    payments: read.payments,
  });
  return { ...row, totals };
}

/** The item's columns after a PATCH; a quantity alone must still match a stored size breakdown. */
function itemChanges(item: Item, body: ItemPatch) {
  const out: Partial<typeof invoiceItems.$inferInsert> = columnFields(body, ["title", "description", "unitPrice", "sizes", "quantity"]);
  if (body.quantity === undefined && body.sizes) out.quantity = sizesTotal(body.sizes).toFixed(2);
  if (body.quantity !== undefined && body.sizes === undefined && item.sizes && !sizesTotal(item.sizes).eq(body.quantity)) {
    throw invalid("Invalid request body", [
      {
        field: "quantity",
        message: `The item's sizes add up to ${sizesTotal(item.sizes)}: send sizes with the quantity, or sizes: null to drop the breakdown`,
      },
    ]);
  }
  return out;
}

export async function updateItem(change: Change, read: Read, body: ItemPatch) {
  const item = read.target!;
  const changes = itemChanges(item, body);
  const row = await writeContents(change, read, LINES, invoiceItems, (ready) => {
    const { moves, place } = renumber(read.lines, item.id, body.position ?? read.lines.findIndex((l) => l.id === item.id));
    return {
      record: updateRecord(change.db, invoiceItems, item.id, { ...changes, position: place }, ready),
      extra: repositionItems(change, read, moves, ready),
    };
  });
  if (!row) return undefined;
  const line = { quantity: row.record.quantity, unit_price: row.record.unitPrice };
  const totals = orderTotals({
    invoice: row.invoice,
    taxRate: read.taxRate,
    lines: linesAfter(read, { id: item.id, line }),
    payments: read.payments,
  });
  return { ...row, totals, decorations: read.decorations, artworkIds: read.artworkIds };
}

export async function deleteItem(change: Change, read: Read) {
  const item = read.target!;
  const row = await writeContents(change, read, LINES, invoiceItems, (ready) => ({
    record: updateRecord(change.db, invoiceItems, item.id, { deletedAt: sql`now()` }, ready),
    extra: [
      ...repositionItems(change, read, renumber(read.lines, item.id, null).moves, ready),
      // Its decorations leave with it.
      change.db.$with("item_decorations").as(
        change.db
          .update(decorations)
          .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
          .where(and(eq(decorations.invoiceItemId, item.id), isNull(decorations.deletedAt), ready))
          .returning({ id: decorations.id }),
      ),
    ],
  }));
  if (!row) return undefined;
  const totals = orderTotals({
    invoice: row.invoice,
    taxRate: read.taxRate,
    lines: linesAfter(read, { id: item.id }),
    payments: read.payments,
  });
  return { ...row, totals };
}
