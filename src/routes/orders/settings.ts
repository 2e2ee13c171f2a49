import { eq, sql } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { orderStatuses, taxes } from "../../db/schema";
import type { AnyDb } from "../../lib/db";
import type { StatusCreateSchema, TaxCreateSchema } from "./schema";

/**
 * Company settings the orders use: order statuses and tax rows. One insert each for the admin CLI
 * (`status create`, `tax create`) and the import sections. A status without a position goes after the
 * company's last one (in the given order).
 */
export async function insertStatuses(db: AnyDb, companyId: number, records: z.infer<typeof StatusCreateSchema>[]) {
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

export async function insertTaxes(db: AnyDb, companyId: number, records: z.infer<typeof TaxCreateSchema>[]) {
  if (!records.length) return [];
  const rows = await db
    .insert(taxes)
    .values(records.map((r) => ({ companyId, name: r.name, rate: r.rate })))
    .returning({ id: taxes.id });
  return rows.map((r) => r.id);
}
