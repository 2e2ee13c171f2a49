import { and, isNull, type SQL, sql } from "drizzle-orm";
import type { decorations } from "../../../db/schema/decorations";
import type { invoiceItems } from "../../../db/schema/orders";
import type { Db } from "../../../platform/db";

/*
 * Dense positions (0 … n−1, no gaps, no duplicates) of an ordered list of an order's contents: an
 * invoice's items, an item's decorations. Every write that adds, moves or removes one renumbers the
 * others in its own statement.
 */

type Positioned = typeof invoiceItems | typeof decorations;

/**
 * New positions (0, 1, 2 … in order) of the live rows `live` (in their current order), with `moving`
 * (a row's id, or null for a new row) taken out and put back at `at` (past the end: last; null:
 * removed). Answers only the other rows whose position changes, and the moving row's place. Positions
 * come out dense and unique whatever they were before (a row deleted outside the API leaves no gap).
 */
export function renumber(live: readonly { id: number; position: number }[], moving: number | null, at: number | null) {
  const order: (number | null)[] = live.filter((l) => l.id !== moving).map((l) => l.id);
  const place = at === null ? -1 : Math.min(at, order.length);
  if (at !== null) order.splice(place, 0, moving);
  return { moves: movesTo(live, order), place };
}

/** The rows of `live` whose position differs from their index in `order` (null: the new row's slot). */
export function movesTo(live: readonly { id: number; position: number }[], order: readonly (number | null)[]) {
  const before = new Map(live.map((l) => [l.id, l.position]));
  return order.flatMap((id, position) => (id !== null && before.get(id) !== position ? [{ id, position }] : []));
}

/**
 * The CTE (`name`) that writes renumbered positions to live rows of `table` that `scope` selects (one
 * UPDATE, ids and positions as two arrays), under `ready`; none when nothing moves.
 */
export function repositionCte(
  db: Db,
  table: Positioned,
  scope: SQL,
  moves: { id: number; position: number }[],
  ready: SQL,
  name = "reposition",
) {
  if (!moves.length) return [];
  const t = table as typeof invoiceItems;
  const ids = `{${moves.map((m) => m.id).join(",")}}`;
  const positions = `{${moves.map((m) => m.position).join(",")}}`;
  return [
    db.$with(name).as(
      db
        .update(t)
        .set({ position: sql`(${positions}::int[])[array_position(${ids}::int[], ${t.id})]`, updatedAt: sql`now()` })
        .where(and(scope, isNull(t.deletedAt), sql`${t.id} = any(${ids}::int[])`, ready))
        .returning({ id: t.id }),
    ),
  ];
}
