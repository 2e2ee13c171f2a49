import { index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { ref } from "./columns";
import { companies } from "./companies";

/**
 * One row per `Idempotency-Key` a company used on a write: the request it belongs to (method, path,
 * SHA-256 of the body) and the response it got. Written in the same transaction as the write, so
 * neither exists without the other; rows past `expires_at` are ignored and replaced.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    companyId: ref("company_id", () => companies.id),
    key: text("key").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    requestHash: text("request_hash").notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.key] }), index("idempotency_keys_expires_idx").on(t.expiresAt)],
);
