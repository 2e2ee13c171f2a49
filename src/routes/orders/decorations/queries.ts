import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Change } from "../../../changes/change";
import { decorations } from "../../../db/schema/decorations";
import { invoiceItems } from "../../../db/schema/orders";
import { ApiError, invalid, notFound } from "../../../http/errors";
import { columnFields } from "../../../http/openapi";
import { movesTo, renumber, repositionCte } from "../contents/positions";
import type { OrderContents } from "../contents/read";
import { insertRecord, updateRecord, writeContents } from "../contents/write";
import { orderTotals } from "../serialize";
import {
  type DecorationCreate,
  type DecorationPatch,
  type DecorationValues,
  decorationProblems,
  MAX_DECORATIONS,
  serializeDecoration,
} from "./schema";

/*
 * A decoration write is a contents write of its item (read.ts, write.ts): one read of the order with the
 * item's live decorations and the order's live artworks, then one statement that writes the decoration,
 * renumbers its siblings, bumps the order and writes its `order.updated` event, whose
 * `previous_attributes` are the item's decorations as they were.
 */

type Read = OrderContents<"item">;
type Row = typeof decorations.$inferSelect;

/** Decorations are not accounting data (the invoice's lines do not change). */
const NO_LINES = { lines: false };

/** The item's decorations before the change, as the API showed them: the event's `previous_attributes`. */
const previousOf = (read: Read): SQL =>
  sql`${JSON.stringify({
    item_id: read.target!.id,
    decorations: read.decorations.map((d) => serializeDecoration(d, read.artworkIds)),
  })}::jsonb`;

/** 422 naming `artwork_id` unless it is one of the order's live artworks (another order's or company's looks the same as none). */
function checkArtwork(read: Read, artworkId: number | null | undefined) {
  if (artworkId == null || read.artworkIds.has(artworkId)) return;
  throw new ApiError(422, "invalid_request", "Invalid artwork_id", [{ field: "artwork_id", message: "Not one of this order's artworks" }]);
}

/** The columns for the fields sent (colour codes stored as null when not given). */
function columnsOf(body: Partial<DecorationCreate>) {
  const out: Partial<typeof decorations.$inferInsert> = columnFields(body, [
    "location",
    "locationDetail",
    "method",
    "colorCount",
    "stitchCount",
    "width",
    "height",
    "unit",
    "artworkId",
    "notes",
  ]);
  if (body.colors !== undefined) out.colors = body.colors.map((c) => ({ name: c.name, code: c.code ?? null }));
  return out;
}

/** The decoration as the rules read it: the stored row with the PATCH's fields over it. */
const merged = (row: Row, body: DecorationPatch): DecorationValues => ({
  location: body.location ?? row.location,
  location_detail: body.location_detail === undefined ? row.locationDetail : body.location_detail,
  method: body.method ?? row.method,
  colors: body.colors ?? row.colors,
  color_count: body.color_count === undefined ? row.colorCount : body.color_count,
  stitch_count: body.stitch_count === undefined ? row.stitchCount : body.stitch_count,
  width: body.width === undefined ? row.width : body.width,
  height: body.height === undefined ? row.height : body.height,
  unit: body.unit === undefined ? row.unit : body.unit,
});

/** The CTE renumbering the item's other live decorations. */
const repositionDecorations = (change: Change, read: Read, moves: { id: number; position: number }[], ready: SQL) =>
  repositionCte(change.db, decorations, eq(decorations.invoiceItemId, read.target!.id), moves, ready, "reposition_decorations");

/** Writes the change; the invoice's totals are unchanged by it. */
async function write<T extends typeof decorations | typeof invoiceItems>(
  change: Change,
  read: Read,
  table: T,
  build: (ready: SQL, from: SQL) => ReturnType<Parameters<typeof writeContents>[4]>,
) {
  const row = await writeContents(change, read, { ...NO_LINES, previous: previousOf(read) }, table, build);
  if (!row) return undefined;
  const totals = orderTotals({ invoice: row.invoice, taxRate: read.taxRate, lines: read.lines, payments: read.payments });
  return { ...row, totals, artworkIds: read.artworkIds };
}

const found = (read: Read, id: number) => {
  const row = read.decorations.find((d) => d.id === id);
  if (!row) throw notFound("Decoration");
  return row;
};

export async function insertDecoration(change: Change, read: Read, body: DecorationCreate) {
  if (read.decorations.length >= MAX_DECORATIONS) {
    throw invalid("Too many decorations", [{ field: "(item)", message: `A line item holds at most ${MAX_DECORATIONS} live decorations` }]);
  }
  checkArtwork(read, body.artwork_id);
  const { moves, place } = renumber(read.decorations, null, body.position ?? MAX_DECORATIONS);
  const values = {
    companyId: change.companyId,
    projectId: read.projectId,
    invoiceItemId: read.target!.id,
    ...columnsOf(body),
    position: place,
  };
  const row = await write(change, read, decorations, (ready, from) => ({
    record: insertRecord(change.db, decorations, values, from),
    extra: repositionDecorations(change, read, moves, ready),
  }));
  return row && { ...row, record: row.record as Row };
}

export async function updateDecoration(change: Change, read: Read, id: number, body: DecorationPatch) {
  const stored = found(read, id);
  const problems = decorationProblems(merged(stored, body));
  if (problems.length) throw invalid("Invalid request body", problems);
  checkArtwork(read, body.artwork_id);
  const { moves, place } = renumber(read.decorations, id, body.position ?? read.decorations.indexOf(stored));
  const row = await write(change, read, decorations, (ready) => ({
    record: updateRecord(change.db, decorations, id, { ...columnsOf(body), position: place }, ready),
    extra: repositionDecorations(change, read, moves, ready),
  }));
  return row && { ...row, record: row.record as Row };
}

export async function deleteDecoration(change: Change, read: Read, id: number) {
  found(read, id);
  return write(change, read, decorations, (ready) => ({
    record: updateRecord(change.db, decorations, id, { deletedAt: sql`now()` }, ready),
    extra: repositionDecorations(change, read, renumber(read.decorations, id, null).moves, ready),
  }));
}

/**
 * Puts the item's live decorations in the order of `ids` (each of them once, nothing else: 400 naming
 * `ids` otherwise). Answers them in their new order, each moved one with the change's time.
 */
export async function reorderDecorations(change: Change, read: Read, ids: number[]) {
  const live = new Set(read.decorations.map((d) => d.id));
  if (ids.length !== live.size || new Set(ids).size !== ids.length || ids.some((id) => !live.has(id))) {
    throw invalid("Invalid request body", [
      { field: "ids", message: `Every live decoration id of the item, each once (${[...live].join(", ") || "none"})` },
    ]);
  }
  const moves = movesTo(read.decorations, ids);
  // The item itself stands as the statement's record: a reorder may move nothing.
  const row = await write(change, read, invoiceItems, (ready) => ({
    record: change.db.$with("record").as(
      change.db
        .select()
        .from(invoiceItems)
        .where(and(eq(invoiceItems.id, read.target!.id), ready)),
    ),
    extra: repositionDecorations(change, read, moves, ready),
  }));
  if (!row) return undefined;
  const moved = new Map(moves.map((m) => [m.id, m.position]));
  const after = ids.map((id) => {
    const d = read.decorations.find((x) => x.id === id)!;
    // now() is the statement's time, which the invoice's updated_at took too.
    return moved.has(id) ? { ...d, position: moved.get(id)!, updatedAt: row.invoice.updatedAt } : d;
  });
  return { ...row, decorations: after };
}
