import { and, desc, eq } from "drizzle-orm";
import { invoices, projects, taxes } from "../../db/schema/orders";
import type { WebhookRenderer } from "../../webhooks/events-catalog";
import { invoiceAmountsColumns } from "./queries";
import { orderEnvelope } from "./serialize";

/**
 * An order event's object as the API returns it now: `{ project, invoice }` (invoice with totals), the
 * body POST and PATCH /orders answer. A soft-deleted order renders from its rows as the delete left them
 * (`order.deleted`).
 */
export const renderOrderObject: WebhookRenderer = async (db, { companyId, resourceId }) => {
  const id = Number(resourceId);
  const [row] = await db
    .select({ project: projects, invoice: invoices, taxRate: taxes.rate, ...invoiceAmountsColumns(invoices.id) })
    .from(projects)
    .innerJoin(invoices, and(eq(invoices.projectId, projects.id), eq(invoices.isDefault, true)))
    .leftJoin(taxes, eq(taxes.id, invoices.taxId))
    .where(and(eq(projects.companyId, companyId), eq(projects.id, id)))
    .orderBy(desc(invoices.id))
    .limit(1);
  return row ? JSON.stringify(orderEnvelope(row)) : undefined;
};
