import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { identityId, ref } from "./columns";
import { companies } from "./companies";

/** What a settings-area user may do: `owner` is everything, `developer` all but the users page. */
export const USER_ROLES = ["owner", "developer"] as const;
export type UserRole = (typeof USER_ROLES)[number];

/**
 * A person who signs in to the settings area. One company each; the address is unique across
 * companies, so sign-in needs only the address and password. `password_hash` is null until the
 * user has chosen a password through a setup link.
 */
export const companyUsers = pgTable(
  "company_users",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    email: text("email").notNull(),
    role: text("role", { enum: USER_ROLES }).notNull(),
    passwordHash: text("password_hash"),
    passwordChangedAt: timestamp("password_changed_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("company_users_email_uq").on(sql`lower(${t.email})`),
    index("company_users_company_idx").on(t.companyId, t.id),
    check("company_users_role_ck", sql`${t.role} in ('owner', 'developer')`),
  ],
);

/**
 * A signed-in session. Only the SHA-256 digest of the cookie's secret is stored. It ends at
 * `expires_at` (absolute lifetime) or when idle for longer than the idle timeout since `last_seen_at`.
 */
export const userSessions = pgTable(
  "user_sessions",
  {
    id: identityId(),
    userId: integer("user_id")
      .notNull()
      .references(() => companyUsers.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("user_sessions_user_idx").on(t.userId)],
);

/** A one-time link where a new (or invited) user chooses a password; digest only, used once, expiring. */
export const userSetupLinks = pgTable(
  "user_setup_links",
  {
    id: identityId(),
    userId: integer("user_id")
      .notNull()
      .references(() => companyUsers.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("user_setup_links_user_idx").on(t.userId)],
);

/** Who may appear as the actor of an audit entry. */
export const ACTOR_TYPES = ["user", "token", "oauth_grant", "system"] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/**
 * The company's audit trail of settings-area actions (sign-in, failed sign-in, token created, rolled
 * or revoked, endpoint changed, user invited or removed, …): who did what to which target, when.
 */
export const auditEntries = pgTable(
  "audit_entries",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    companyId: ref("company_id", () => companies.id),
    actorType: text("actor_type", { enum: ACTOR_TYPES }).notNull(),
    /** The actor's id as text (a user or token id); null for `system`. */
    actorId: text("actor_id"),
    /** e.g. `token.created`, `user.signed_in`, `user.sign_in_failed`, `webhook_endpoint.updated`. */
    action: text("action").notNull(),
    targetType: text("target_type"),
    targetId: text("target_id"),
    /** What the action changed or named (never a secret). */
    details: jsonb("details").notNull().default(sql`'{}'::jsonb`),
    clientIp: text("client_ip"),
    requestId: text("request_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("audit_entries_company_idx").on(t.companyId, t.id),
    index("audit_entries_company_actor_idx").on(t.companyId, t.actorType, t.actorId, t.id),
    // Retention: the cron pass drops entries older than AUDIT_RETENTION_DAYS, oldest first.
    index("audit_entries_created_idx").on(t.createdAt),
    check("audit_entries_actor_type_ck", sql`${t.actorType} in ('user', 'token', 'oauth_grant', 'system')`),
  ],
);
