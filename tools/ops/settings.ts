import type { z } from "@hono/zod-openapi";
import { and, inArray, sql } from "drizzle-orm";
import { orderStatuses, taxes } from "../../src/db/schema";
import type { Db } from "../../src/platform/db";
import { liveStatuses, statusesLock } from "../../src/routes/statuses/queries";
import { MAX_STATUSES, statusCreateSchema } from "../../src/routes/statuses/schema";
import { liveTaxes } from "../../src/routes/taxes/queries";
import { MAX_TAXES, taxCreateSchema } from "../../src/routes/taxes/schema";
import { CommandError } from "./errors";

// The API's own record schemas (POST /statuses, POST /taxes).
export { statusCreateSchema, taxCreateSchema };

/**
 * Company settings the orders use: order statuses and tax rows. One insert each for the admin CLI
 * (`status create`, `tax create`) and the import sections. Statuses follow the API's rules: under the
 * company's status lock (the one POST /statuses takes), names unique ignoring case, and positions 0 … n−1:
 * a status with a position goes there (before the status that had it; several at one position in the
 * given order), one without goes last.
 */
export async function insertStatuses(db: Db, companyId: number, records: z.infer<ReturnType<typeof statusCreateSchema>>[]) {
  if (!records.length) return [];
  // A savepoint when the caller is in a transaction already (the import).
  return db.transaction(async (tx) => {
    await tx.execute(statusesLock(companyId));
    const names = records.map((r) => r.name.toLowerCase());
    const repeated = records.find((r, i) => names.indexOf(r.name.toLowerCase()) !== i);
    if (repeated) throw new CommandError(`status name "${repeated.name}" is given twice (names are unique ignoring case)`);
    const [taken] = await tx
      .select({ name: orderStatuses.name })
      .from(orderStatuses)
      .where(and(liveStatuses(companyId), inArray(sql`lower(${orderStatuses.name})`, names)))
      .limit(1);
    if (taken) throw new CommandError(`a status named "${taken.name}" exists already (names are unique ignoring case)`);
    const [{ n }] = await tx.select({ n: sql<number>`count(*)::int` }).from(orderStatuses).where(liveStatuses(companyId));
    if (n + records.length > MAX_STATUSES) throw new CommandError(`a company has at most ${MAX_STATUSES} statuses`);
    const rows = await tx
      .insert(orderStatuses)
      .values(records.map((r, i) => ({ companyId, name: r.name, color: r.color, position: r.position ?? n + i })))
      .returning({ id: orderStatuses.id });
    const ids = rows.map((r) => r.id);
    // Dense again: by position; at one position the new statuses first, in the given (id) order.
    await tx.execute(sql`
      update ${orderStatuses} s set position = d.dense, updated_at = now()
      from (select id, (row_number() over (order by position, (id = any(${`{${ids.join(",")}}`}::int[])) desc, id) - 1)::int as dense
            from ${orderStatuses} where ${liveStatuses(companyId)}) d
      where s.id = d.id and s.position is distinct from d.dense`);
    return ids;
  });
}

export async function insertTaxes(db: Db, companyId: number, records: z.infer<ReturnType<typeof taxCreateSchema>>[]) {
  if (!records.length) return [];
  const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(taxes).where(liveTaxes(companyId));
  if (n + records.length > MAX_TAXES) throw new CommandError(`a company has at most ${MAX_TAXES} taxes`);
  const rows = await db
    .insert(taxes)
    .values(records.map((r) => ({ companyId, name: r.name, rate: r.rate })))
    .returning({ id: taxes.id });
  return rows.map((r) => r.id);
}
