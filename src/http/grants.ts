import { sql } from "drizzle-orm";
import type { TokenScope } from "../db/schema/companies";
import type { Db } from "../platform/db";
import { rowsOf } from "../platform/sql-kit";
import { API_PREFIX } from "./api-prefix";

/*
 * OAuth access tokens (src/oauth/) as auth.ts sees them: a grant's token is a token like the API tokens,
 * resolving to the same principal (company, scope) plus the grant, its client and its user. The rate
 * limit and the revocation marker are keyed by the grant (`grantKey`), not by the token, so a refresh
 * (a new access token) keeps the grant's count, and one marker ends every token the grant issued.
 */

/** An access token: `crm_at_` and 64 hex characters (an API token is the 64 hex alone). */
export const ACCESS_TOKEN_PREFIX = "crm_at_";
/** How auth.ts marks the digest of an access token in its cache, apart from API tokens' digests. */
export const GRANT_DIGEST_PREFIX = "oauth:";

export interface GrantOfToken {
  id: number;
  /** The client's `client_id` (a registered id, or its metadata document's URL). */
  clientId: string;
  userId: number;
  /** The resource (RFC 8707) the grant was made for; the token is refused elsewhere. */
  resource: string;
  /** The grant's rate-limit and revocation key (a digest like a token's, never the token). */
  key: string;
}

const encoder = new TextEncoder();
async function hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The grant's key for the rate limiter and the revocation marker: a digest under its own label. */
export const grantKey = (grantId: number) => hex(`oauth-grant:${grantId}`);

/** The resource identifiers this origin's tokens may be bound to: the API, and its MCP endpoint under it. */
export const resourcesOf = (origin: string) => [`${origin}${API_PREFIX}`, `${origin}${API_PREFIX}/mcp`];

/** Whether a grant bound to `resource` may be used on this request's origin. */
export const resourceServes = (resource: string, requestUrl: string) => resourcesOf(new URL(requestUrl).origin).includes(resource);

/** The live access token of this digest, with its grant; undefined when unknown, expired or its grant revoked. */
export async function findAccessToken(
  db: Db,
  tokenHash: string,
): Promise<{ companyId: number; scope: TokenScope; lastUsedAt: number | null; expiresAt: number; grant: GrantOfToken } | undefined> {
  const [row] = rowsOf<{
    grant_id: number;
    company_id: number;
    scope: TokenScope;
    resource: string;
    user_id: number;
    client_id: string;
    last_used_at: string | null;
    expires_at: string;
  }>(
    await db.execute(sql`
      select g.id as grant_id, g.company_id, g.scope, g.resource, g.user_id, c.client_id, g.last_used_at, t.expires_at
      from oauth_tokens t join oauth_grants g on g.id = t.grant_id join oauth_clients c on c.id = g.client_id
      where t.token_hash = ${tokenHash} and t.kind = 'access' and t.expires_at > now() and g.revoked_at is null`),
  );
  if (!row) return undefined;
  return {
    companyId: row.company_id,
    scope: row.scope,
    lastUsedAt: row.last_used_at ? new Date(row.last_used_at).getTime() : null,
    expiresAt: new Date(row.expires_at).getTime(),
    grant: { id: row.grant_id, clientId: row.client_id, userId: row.user_id, resource: row.resource, key: await grantKey(row.grant_id) },
  };
}

/** Marks the grant used (at most once a minute; the WHERE keeps concurrent requests from writing twice). */
export const touchGrant = (db: Db, grantId: number) =>
  db.execute(sql`
    update oauth_grants set last_used_at = now()
    where id = ${grantId} and (last_used_at is null or last_used_at < now() - interval '1 minute')`);
