import { sql } from "drizzle-orm";
import { boolean, index, jsonb, numeric, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { identityId, ref } from "./columns";
import { companies } from "./companies";

export const catalogItems = pgTable(
  "catalog_items",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    title: text("title").notNull(),
    sku: text("sku"),
    description: text("description"),
    unitPrice: numeric("unit_price", { precision: 14, scale: 2 }),
    category: text("category"),
    imageUrl: text("image_url"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    index("catalog_items_company_recent_idx").on(t.companyId, t.createdAt, t.id).where(sql`${t.deletedAt} is null`),
    index("catalog_items_company_title_trgm").using("gin", t.companyId, t.title.op("gin_trgm_ops")).where(sql`${t.deletedAt} is null`),
    // Title order within the company: a common term's first matches come from walking it.
    index("catalog_items_company_title_idx").on(t.companyId, t.title, t.id).where(sql`${t.deletedAt} is null`),
    // Titles starting with q (search lists them first): a range of lower(title), read from the index alone.
    index("catalog_items_company_title_prefix_idx")
      .on(t.companyId, sql`lower(${t.title}) text_pattern_ops`, t.title, t.id)
      .where(sql`${t.deletedAt} is null`),
  ],
);

/** Per company and supplier ('supplier_a' | 'supplier_b'); credentials are never returned or logged. */
export const supplierIntegrations = pgTable(
  "supplier_integrations",
  {
    companyId: ref("company_id", () => companies.id),
    provider: text("provider").notNull(),
    enabled: boolean("enabled").notNull().default(false),
    credentials: jsonb("credentials").$type<Record<string, string>>().notNull().default({}),
    // Null means the supplier's production endpoint.
    baseUrl: text("base_url"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.provider] })],
);
