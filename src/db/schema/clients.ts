import { sql } from "drizzle-orm";
import { boolean, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { identityId, ref } from "./columns";
import { companies } from "./companies";

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
    // Derived search columns: "first last" and the phone's digits (search ignores punctuation).
    fullName: text("full_name").generatedAlwaysAs(sql`btrim(coalesce(first_name, '') || ' ' || coalesce(last_name, ''))`),
    phoneDigits: text("phone_digits").generatedAlwaysAs(sql`regexp_replace(coalesce(phone, ''), '[^0-9]', '', 'g')`),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    index("clients_company_live_idx").on(t.companyId, t.id).where(sql`${t.deletedAt} is null`),
    index("clients_company_email_idx").on(t.companyId, sql`lower(${t.email})`, t.id).where(sql`${t.deletedAt} is null`),
    index("clients_company_name_trgm").using("gin", t.companyName.op("gin_trgm_ops")),
    index("clients_first_name_trgm").using("gin", t.firstName.op("gin_trgm_ops")),
    index("clients_last_name_trgm").using("gin", t.lastName.op("gin_trgm_ops")),
    index("clients_full_name_trgm").using("gin", t.fullName.op("gin_trgm_ops")),
    index("clients_email_trgm").using("gin", t.email.op("gin_trgm_ops")),
    index("clients_phone_digits_trgm").using("gin", t.phoneDigits.op("gin_trgm_ops")),
  ],
);
