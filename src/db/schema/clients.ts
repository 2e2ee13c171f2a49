import { sql } from "drizzle-orm";
import { type AnyPgColumn, boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { identityId, ref } from "./columns";
import { companies } from "./companies";

/**
 * The searchable text of a client: company name, "first last", email and phone, joined by U+001F (which a
 * search never matches, so a match never spans two fields). Used by the search index and by the
 * search itself: the two must stay the same expression for the planner to use the index.
 */
export const clientSearchText = (t: { companyName: AnyPgColumn; fullName: AnyPgColumn; email: AnyPgColumn; phone: AnyPgColumn }) =>
  sql`(${t.companyName} || E'\\x1f' || ${t.fullName} || E'\\x1f' || coalesce(${t.email}, '') || E'\\x1f' || coalesce(${t.phone}, ''))`;

/**
 * The keys of the client search index: every 1-, 2- and 3-character gram of the lowercased searchable
 * text and of the phone's digits, each prefixed with the company id and a space ("17 ma"), so a
 * company's search reads only its own posting lists (`client_search_grams`, drizzle/0011). Queries
 * must use this same expression for the planner to use the index.
 */
export const clientSearchGrams = (t: {
  companyId: AnyPgColumn;
  companyName: AnyPgColumn;
  fullName: AnyPgColumn;
  email: AnyPgColumn;
  phone: AnyPgColumn;
  phoneDigits: AnyPgColumn;
}) => sql`client_search_grams(${t.companyId}::text || ' ', ${clientSearchText(t)}, ${t.phoneDigits})`;

export const clients = pgTable(
  "clients",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    companyName: text("company_name").notNull(),
    firstName: text("first_name"),
    lastName: text("last_name"),
    email: text("email"),
    website: text("website"),
    phone: text("phone"),
    quickbooksEnabled: boolean("quickbooks_enabled").notNull().default(false),
    taxExempt: boolean("tax_exempt").notNull().default(false),
    taxExemptReason: text("tax_exempt_reason"),
    /** The integrator's id for the client (another system's), unique among the company's live clients. */
    externalId: text("external_id"),
    /** The integrator's key-value pairs (string values). */
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    // Derived search columns: "first last" and the phone's digits (search ignores punctuation).
    fullName: text("full_name").generatedAlwaysAs(sql`btrim(coalesce(first_name, '') || ' ' || coalesce(last_name, ''))`),
    phoneDigits: text("phone_digits").generatedAlwaysAs(sql`regexp_replace(coalesce(phone, ''), '[^0-9]', '', 'g')`),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    index("clients_company_live_idx").on(t.companyId, t.id).where(sql`${t.deletedAt} is null`),
    // Incremental sync (updated_since): every row, tombstones included, in (updated_at, id) order.
    index("clients_company_updated_idx").on(t.companyId, t.updatedAt, t.id),
    // One live client per external id in a company (a soft-deleted one frees it); also the `external_id` filter's index.
    uniqueIndex("clients_company_external_id_uq")
      .on(t.companyId, t.externalId)
      .where(sql`${t.deletedAt} is null and ${t.externalId} is not null`),
    index("clients_company_email_idx").on(t.companyId, sql`lower(${t.email})`, t.id).where(sql`${t.deletedAt} is null`),
    // Search: one GIN over the company-prefixed grams of the searchable text (any length of q).
    index("clients_search_grams").using("gin", clientSearchGrams(t)).where(sql`${t.deletedAt} is null`),
    // The trigram indexes the search used before clients_search_grams (migration 0011): unused by this code,
    // kept for the code running while that migration deploys (add first, remove in a later release).
    index("clients_company_search_trgm")
      .using("gin", t.companyId, sql`(${t.companyName} || E'\\x1f' || ${t.fullName} || E'\\x1f' || coalesce(${t.email}, '')) gin_trgm_ops`)
      .where(sql`${t.deletedAt} is null`),
    index("clients_company_phone_trgm").using("gin", t.companyId, t.phoneDigits.op("gin_trgm_ops")).where(sql`${t.deletedAt} is null`),
  ],
);
