import { z } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { orderStatuses, taxes } from "../../src/db/schema";
import { text } from "../../src/http/openapi";
import type { Db } from "../../src/platform/db";
import { decimalInput } from "../../src/platform/money";

export const StatusCreateSchema = z.strictObject({
  name: text(100).min(1, "name must not be blank"),
  position: z.number().int().min(0).max(1_000_000).optional(),
});
export const TaxCreateSchema = z.strictObject({
  name: text(100).min(1, "name must not be blank"),
  rate: decimalInput({ scale: 4, min: 0, max: "100", description: "Tax rate in percent" }),
});

/**
 * Company settings the orders use: order statuses and tax rows. One insert each for the admin CLI
 * (`status create`, `tax create`) and the import sections. A status without a position goes after the
 * company's last one (in the given order).
 */
export async function insertStatuses(db: Db, companyId: number, records: z.infer<typeof StatusCreateSchema>[]) {
  if (!records.length) return [];
  const [{ last }] = await db
    .select({ last: sql<number>`coalesce(max(${orderStatuses.position}), -1)`.mapWith(Number) })
    .from(orderStatuses)
    .where(eq(orderStatuses.companyId, companyId));
  const rows = await db
    .insert(orderStatuses)
    .values(records.map((r, i) => ({ companyId, name: r.name, position: r.position ?? last + 1 + i })))
    .returning({ id: orderStatuses.id });
  return rows.map((r) => r.id);
}

export async function insertTaxes(db: Db, companyId: number, records: z.infer<typeof TaxCreateSchema>[]) {
  if (!records.length) return [];
  const rows = await db
    .insert(taxes)
    .values(records.map((r) => ({ companyId, name: r.name, rate: r.rate })))
    .returning({ id: taxes.id });
  return rows.map((r) => r.id);
}
