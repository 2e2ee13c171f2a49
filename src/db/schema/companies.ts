import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { identityId, ref } from "./columns";

export const companies = pgTable("companies", {
  id: identityId(),
  name: text("name").notNull(),
  // Company-level default for accounting sync; a request's `quickbooks_enabled` overrides it.
  accountingSyncEnabled: boolean("accounting_sync_enabled").notNull().default(false),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/** What a token may do: `read` is GET only, `write` is every operation. */
export const TOKEN_SCOPES = ["read", "write"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export const apiTokens = pgTable(
  "api_tokens",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    // Only the SHA-256 digest (hex) is stored; the raw token is shown once at creation.
    tokenHash: text("token_hash").notNull().unique(),
    // Fixed at creation; tokens made before scopes existed can do everything, so the default is write.
    scope: text("scope", { enum: TOKEN_SCOPES }).notNull().default("write"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** Shown in the settings area; null for tokens made before names existed. */
    name: text("name"),
    /** The settings-area user who made it (`company_users.id`); null for the operator CLI. No foreign key: a removed user's tokens live on. */
    createdByUserId: integer("created_by_user_id"),
    /** After this the token answers 401 like a revoked one; null: no expiry. A roll's overlap sets it on the old token. */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    /** The raw token's last four characters, shown in lists; null for tokens made before it was kept. */
    lastFour: text("last_four"),
  },
  (t) => [
    index("api_tokens_company_idx").on(t.companyId).where(sql`${t.revokedAt} is null`),
    check("api_tokens_scope_ck", sql`${t.scope} in ('read', 'write')`),
  ],
);
