import { sql } from "drizzle-orm";
import { boolean, check, date, index, integer, jsonb, numeric, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { clients } from "./clients";
import { identityId, ref } from "./columns";
import { companies } from "./companies";

// Money and quantities are exact decimals (numeric); drizzle returns them as strings.
const money = (name: string) => numeric(name, { precision: 14, scale: 2 });
const timestamps = {
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
};

/**
 * A company's order statuses, in the order the shop works through them. Live statuses hold the positions
 * 0 … n−1 (every write keeps them dense); a deleted one keeps its row (orders deleted with it still name it),
 * out of the order. Names are unique in the company, ignoring case, among live statuses.
 */
export const orderStatuses = pgTable(
  "order_statuses",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    name: text("name").notNull(),
    // #RRGGBB, or null.
    color: text("color"),
    position: integer("position").notNull().default(0),
    ...timestamps,
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    index("order_statuses_company_idx").on(t.companyId, t.position),
    uniqueIndex("order_statuses_company_name_uq").on(t.companyId, sql`lower(${t.name})`).where(sql`${t.deletedAt} is null`),
  ],
);

/** A company's tax rates. A deleted one keeps its row: invoices of deleted orders still compute their totals with it. */
export const taxes = pgTable(
  "taxes",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    name: text("name").notNull(),
    // Percent, e.g. 8.875 for 8.875 %.
    rate: numeric("rate", { precision: 7, scale: 4 }).notNull(),
    ...timestamps,
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [index("taxes_company_idx").on(t.companyId)],
);

/**
 * An order's payment state, for filtering: `unpaid` (nothing paid, total above 0), `partial`, `paid`
 * (payments ≥ total, a total of 0 included). Kept by triggers from the invoice's totals (drizzle/0013).
 */
export const ORDER_PAYMENT_STATUSES = ["unpaid", "partial", "paid"] as const;

export const projects = pgTable(
  "projects",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    clientId: ref("client_id", () => clients.id),
    title: text("title").notNull(),
    description: text("description"),
    // The spec passes start_date through unchanged, so it is text; deadline is a real date.
    startDate: text("start_date"),
    deadline: date("deadline", { mode: "string" }),
    statusId: integer("status_id").references(() => orderStatuses.id),
    /** The integrator's id for the order (a storefront's order id), unique among the company's live orders. */
    externalId: text("external_id"),
    /** The integrator's key-value pairs (string values). */
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    // Derived from the default invoice's totals and payments by triggers, never written by the API.
    paymentStatus: text("payment_status", { enum: ORDER_PAYMENT_STATUSES }).notNull().default("paid"),
    ...timestamps,
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    // One live order per external id in a company (a deleted order frees it); also the `external_id` filter's index.
    uniqueIndex("projects_company_external_id_uq")
      .on(t.companyId, t.externalId)
      .where(sql`${t.deletedAt} is null and ${t.externalId} is not null`),
    check("projects_payment_status_ck", sql`${t.paymentStatus} in ('unpaid', 'partial', 'paid')`),
    index("projects_company_created_idx").on(t.companyId, t.createdAt, t.id).where(sql`${t.deletedAt} is null`),
    // Incremental sync (updated_since): every order, tombstones included, in (updated_at, id) order.
    index("projects_company_updated_idx").on(t.companyId, t.updatedAt, t.id),
    // The list's filters, each in the list's order (newest first), so a filtered page reads only its rows.
    index("projects_company_client_created_idx").on(t.companyId, t.clientId, t.createdAt, t.id).where(sql`${t.deletedAt} is null`),
    index("projects_company_status_created_idx").on(t.companyId, t.statusId, t.createdAt, t.id).where(sql`${t.deletedAt} is null`),
    index("projects_company_payment_created_idx").on(t.companyId, t.paymentStatus, t.createdAt, t.id).where(sql`${t.deletedAt} is null`),
    // sort=deadline and -deadline (nulls last either way) and the deadline range: the expressions the list orders by.
    // The trailing deadline and created_at make the range and its count index-only, and a range page in
    // created order a sort of index entries (an expression alone cannot answer from the index).
    index("projects_company_deadline_idx")
      .on(t.companyId, sql`coalesce(${t.deadline}, 'infinity'::date)`, t.id, t.deadline, t.createdAt)
      .where(sql`${t.deletedAt} is null`),
    index("projects_company_deadline_desc_idx")
      .on(t.companyId, sql`coalesce(${t.deadline}, '-infinity'::date)`, t.id)
      .where(sql`${t.deletedAt} is null`),
  ],
);

export const invoices = pgTable(
  "invoices",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    projectId: ref("project_id", () => projects.id),
    clientId: ref("client_id", () => clients.id),
    isDefault: boolean("is_default").notNull().default(true),
    dueDate: date("due_date", { mode: "string" }),
    clientNotes: text("client_notes"),
    taxId: integer("tax_id").references(() => taxes.id),
    taxExempt: boolean("tax_exempt").notNull().default(false),
    taxExemptReason: text("tax_exempt_reason"),
    discountAmount: money("discount_amount").notNull().default("0"),
    discountAmountType: text("discount_amount_type").notNull().default("percentage"),
    discountType: text("discount_type").notNull().default("before_tax"),
    ...timestamps,
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    // One default invoice per project, even under concurrent creates.
    uniqueIndex("invoices_project_default_uq").on(t.projectId).where(sql`${t.isDefault}`),
    index("invoices_company_idx").on(t.companyId),
    // A tax's invoices: its rate change (their orders' payment status too, deleted ones included) and its delete's count.
    index("invoices_tax_idx").on(t.taxId),
    check("invoices_discount_amount_type_ck", sql`${t.discountAmountType} in ('percentage', 'fixed_amount')`),
    check("invoices_discount_type_ck", sql`${t.discountType} in ('before_tax', 'after_tax')`),
    check("invoices_discount_amount_ck", sql`${t.discountAmount} >= 0`),
  ],
);

export const invoiceItems = pgTable(
  "invoice_items",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    invoiceId: ref("invoice_id", () => invoices.id),
    title: text("title").notNull(),
    description: text("description"),
    quantity: numeric("quantity", { precision: 12, scale: 2 }).notNull().default("1"),
    unitPrice: money("unit_price").notNull().default("0"),
    // Optional size breakdown, e.g. {"S": 4, "M": 10, "L": 6}.
    sizes: jsonb("sizes").$type<Record<string, number>>(),
    position: integer("position").notNull().default(0),
    ...timestamps,
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    index("invoice_items_invoice_idx").on(t.invoiceId, t.position, t.id),
    // Line search: most recent first, and trigram matches within the company (btree_gin leads with company_id).
    index("invoice_items_company_created_idx").on(t.companyId, t.createdAt, t.id).where(sql`${t.deletedAt} is null`),
    index("invoice_items_company_title_trgm").using("gin", t.companyId, t.title.op("gin_trgm_ops")).where(sql`${t.deletedAt} is null`),
    index("invoice_items_company_description_trgm")
      .using("gin", t.companyId, t.description.op("gin_trgm_ops"))
      .where(sql`${t.deletedAt} is null`),
  ],
);

export const payments = pgTable(
  "payments",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    invoiceId: ref("invoice_id", () => invoices.id),
    amount: money("amount").notNull(),
    paidDate: date("paid_date", { mode: "string" }),
    method: text("method"),
    reference: text("reference"),
    ...timestamps,
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [index("payments_invoice_idx").on(t.invoiceId)],
);

export const artworks = pgTable(
  "artworks",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    projectId: ref("project_id", () => projects.id),
    printMethod: text("print_method"),
    placements: jsonb("placements").$type<string[]>().notNull().default([]),
    colors: jsonb("colors").$type<string[]>().notNull().default([]),
    previewUrl: text("preview_url"),
    status: text("status"),
    // When the artwork's status last became `approved`; null while it is not approved.
    approvedAt: timestamp("approved_at", { withTimezone: true }),
    ...timestamps,
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [index("artworks_project_idx").on(t.projectId)],
);
