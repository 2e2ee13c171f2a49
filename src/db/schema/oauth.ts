import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { identityId, ref } from "./columns";
import { companies, TOKEN_SCOPES } from "./companies";
import { companyUsers } from "./users";

/*
 * The OAuth 2.1 authorization server (docs/mcp.md#oauth, src/oauth/). Every secret (code, access and
 * refresh token) is stored as its SHA-256 digest only, as API tokens are.
 */

/** How a client became known: RFC 7591 registration, or its Client ID Metadata Document (an https `client_id` URL). */
export const OAUTH_CLIENT_KINDS = ["dcr", "cimd"] as const;

/**
 * An OAuth client. A registered one (`dcr`) has a random `client_id`; a metadata-document one (`cimd`)
 * has its document's URL as `client_id`, and the row is the document as last fetched (`fetched_at`).
 */
export const oauthClients = pgTable(
  "oauth_clients",
  {
    id: identityId(),
    clientId: text("client_id").notNull().unique(),
    kind: text("kind", { enum: OAUTH_CLIENT_KINDS }).notNull(),
    name: text("name").notNull(),
    /** The client's home page as it states it (unverified for a registered client). */
    clientUri: text("client_uri"),
    redirectUris: text("redirect_uris").array().notNull(),
    /** Who registered it (`CF-Connecting-IP`), for the per-caller registration limit. */
    registeredBy: text("registered_by"),
    fetchedAt: timestamp("fetched_at", { withTimezone: true }).notNull().defaultNow(),
    /** The last consent given to it: a registered client never granted is dropped after a while (src/oauth/purge.ts). */
    grantedAt: timestamp("granted_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("oauth_clients_registered_by_idx").on(t.registeredBy, t.createdAt),
    check("oauth_clients_kind_ck", sql`${t.kind} in ('dcr', 'cimd')`),
  ],
);

/** An authorization request waiting for the user's consent (the consent page's key); short-lived. */
export const oauthRequests = pgTable(
  "oauth_requests",
  {
    id: identityId(),
    key: text("key").notNull().unique(),
    clientId: integer("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    redirectUri: text("redirect_uri").notNull(),
    /** What the client asked for: `read` or `write`. */
    scope: text("scope", { enum: TOKEN_SCOPES }).notNull(),
    state: text("state"),
    codeChallenge: text("code_challenge").notNull(),
    resource: text("resource").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  // The purge's (expired first) and the client purge's (a client with a pending request is kept).
  (t) => [index("oauth_requests_expires_idx").on(t.expiresAt), index("oauth_requests_client_idx").on(t.clientId)],
);

/**
 * What a user allowed a client: a company, a scope and the resource its tokens are for. Its tokens act
 * as an API token of that scope; revoking it ends every token it issued.
 */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    userId: integer("user_id")
      .notNull()
      .references(() => companyUsers.id, { onDelete: "cascade" }),
    clientId: integer("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    scope: text("scope", { enum: TOKEN_SCOPES }).notNull(),
    resource: text("resource").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [
    index("oauth_grants_company_idx").on(t.companyId, t.id).where(sql`${t.revokedAt} is null`),
    // The client purge asks whether a client has grants.
    index("oauth_grants_client_idx").on(t.clientId),
    check("oauth_grants_scope_ck", sql`${t.scope} in ('read', 'write')`),
  ],
);

/** Authorization codes: one use, bound to the redirect URI and PKCE challenge of their request; kept as long as their grant. */
export const oauthCodes = pgTable(
  "oauth_codes",
  {
    id: identityId(),
    grantId: integer("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull().unique(),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  // Deleting a grant deletes its codes (on delete cascade) through this.
  (t) => [index("oauth_codes_grant_idx").on(t.grantId)],
);

export const OAUTH_TOKEN_KINDS = ["access", "refresh"] as const;

/** Access and refresh tokens of a grant. A refresh token is used once (`used_at`): presenting it again revokes the grant. */
export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    id: identityId(),
    grantId: integer("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: OAUTH_TOKEN_KINDS }).notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [
    index("oauth_tokens_grant_idx").on(t.grantId),
    // The purge's: tokens long past their expiry, oldest first.
    index("oauth_tokens_expires_idx").on(t.expiresAt),
    check("oauth_tokens_kind_ck", sql`${t.kind} in ('access', 'refresh')`),
  ],
);
