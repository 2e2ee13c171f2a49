import type { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import type { Change } from "../../../changes/change";
import { artworks } from "../../../db/schema/orders";
import { invalid } from "../../../http/errors";
import { columnFields } from "../../../http/openapi";
import type { OrderContents } from "../contents/read";
import { type artworkFieldsSchema, MAX_CONTENTS } from "../contents/schema";
import { insertRecord, updateRecord, writeContents } from "../contents/write";
import { orderTotals } from "../serialize";

type ArtworkFields = z.infer<ReturnType<typeof artworkFieldsSchema>>;
/** Artworks are not part of the accounting invoice. */
const NO_LINES = { lines: false };

/**
 * The artwork's columns for the fields sent. `approved_at` is set when the status becomes `approved`
 * (kept when it already was), and cleared when it becomes anything else.
 */
function artworkColumns(body: Partial<ArtworkFields>, storedStatus: string | null) {
  const out: { [K in keyof typeof artworks.$inferInsert]?: (typeof artworks.$inferInsert)[K] | SQL } = columnFields(body, [
    "printMethod",
    "placements",
    "colors",
    "previewUrl",
    "status",
  ]);
  if (body.status !== undefined && body.status !== "approved") out.approvedAt = null;
  if (body.status === "approved" && storedStatus !== "approved") out.approvedAt = sql`now()`;
  return out;
}

/** Writes the artwork change; the invoice's totals are unchanged by it. */
async function write(change: Change, read: OrderContents, record: (ready: SQL, from: SQL) => ReturnType<typeof insertRecord>) {
  const row = await writeContents(change, read, NO_LINES, artworks, (ready, from) => ({ record: record(ready, from) }));
  if (!row) return undefined;
  return { ...row, totals: orderTotals({ invoice: row.invoice, taxRate: read.taxRate, lines: read.lines, payments: read.payments }) };
}

export function insertArtwork(change: Change, read: OrderContents, body: ArtworkFields) {
  if (read.artworkCount >= MAX_CONTENTS) {
    throw invalid("Too many artworks", [{ field: "(order)", message: `An order holds at most ${MAX_CONTENTS} live artworks` }]);
  }
  const values = { companyId: change.companyId, projectId: read.projectId, ...artworkColumns({ status: "draft", ...body }, null) };
  return write(change, read, (_ready, from) => insertRecord(change.db, artworks, values, from));
}

export function updateArtwork(change: Change, read: OrderContents<"artwork">, body: Partial<ArtworkFields>) {
  const { id, status } = read.target!;
  return write(change, read, (ready) => updateRecord(change.db, artworks, id, artworkColumns(body, status), ready));
}

export function deleteArtwork(change: Change, read: OrderContents<"artwork">) {
  const id = read.target!.id;
  return write(change, read, (ready) => updateRecord(change.db, artworks, id, { deletedAt: sql`now()` }, ready));
}
