import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { ref } from "./columns";
import { companies } from "./companies";
import { invoices, projects } from "./orders";

/**
 * Transactional outbox: one row per order change that syncs to the accounting system,
 * written in the same transaction as the change and delivered later (queue consumer).
 * operation: 'create' | 'update' | 'delete'; payload describes the accounting operation.
 * status: 'pending' -> 'done' | 'failed' (retrying) -> 'dead' (gave up).
 */
export const accountingOutbox = pgTable(
  "accounting_outbox",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    companyId: ref("company_id", () => companies.id),
    projectId: ref("project_id", () => projects.id),
    invoiceId: ref("invoice_id", () => invoices.id),
    operation: text("operation").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull().default({}),
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    enqueuedAt: timestamp("enqueued_at", { withTimezone: true }),
    processedAt: timestamp("processed_at", { withTimezone: true }),
  },
  (t) => [
    index("accounting_outbox_pending_idx").on(t.status, t.createdAt).where(sql`${t.status} in ('pending', 'failed')`),
    index("accounting_outbox_invoice_idx").on(t.invoiceId, t.id),
    index("accounting_outbox_company_idx").on(t.companyId, t.status),
  ],
);

/** Per-company connection to the accounting system (OAuth 2). Secrets never leave the server. */
export const accountingConnections = pgTable("accounting_connections", {
  companyId: integer("company_id")
    .primaryKey()
    .references(() => companies.id),
  realmId: text("realm_id").notNull(),
  clientId: text("client_id").notNull(),
  clientSecret: text("client_secret").notNull(),
  refreshToken: text("refresh_token").notNull(),
  accessToken: text("access_token"),
  accessTokenExpiresAt: timestamp("access_token_expires_at", { withTimezone: true }),
  baseUrl: text("base_url"),
  tokenUrl: text("token_url"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Remote ids and SyncTokens of local records in the accounting system ('customer' | 'invoice'). */
export const accountingLinks = pgTable(
  "accounting_links",
  {
    companyId: ref("company_id", () => companies.id),
    entity: text("entity").notNull(),
    localId: integer("local_id").notNull(),
    remoteId: text("remote_id").notNull(),
    syncToken: text("sync_token"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.entity, t.localId] })],
);
