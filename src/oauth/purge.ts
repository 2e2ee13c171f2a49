import { sql } from "drizzle-orm";
import { oauthClients, oauthGrants, oauthRequests, oauthTokens } from "../db/schema/oauth";
import type { Db } from "../platform/db";
import { deleteInBatches } from "../platform/sql-kit";
import { REFRESH_TOKEN_SECONDS } from "./protocol";

/*
 * The cron pass's retention for the authorization server's rows (docs/mcp.md#oauth), each kind in
 * bounded batches (deleteInBatches) over an index. Reuse detection needs a used code or refresh token to
 * be recognised after it was used: tokens are kept a refresh lifetime past their expiry, and codes as long
 * as their grant. Requests and tokens are found by their `expires_at` index; grants and clients (one per
 * consent, per registration) are scanned, probing the indexes on `grant_id` and `client_id`.
 */

/** How long a token is kept past its expiry, and a grant with no tokens left past its creation. */
export const KEEP_EXPIRED_SECONDS = REFRESH_TOKEN_SECONDS;
/** A registered client that never got a consent is dropped this long after it registered. */
export const UNGRANTED_CLIENT_SECONDS = 30 * 24 * 3600;
/** A metadata-document client without grants is dropped this long after it was last fetched (it is fetched again when used). */
export const CIMD_CLIENT_SECONDS = 24 * 3600;

export interface OAuthPurge {
  requests: number;
  tokens: number;
  grants: number;
  clients: number;
}

/** Deletes what the authorization server no longer needs; answers how many rows of each kind went. */
export async function purgeExpiredOAuthRows(db: Db): Promise<OAuthPurge> {
  // Pending consents past their 10 minutes: the consent page already answers "Request expired".
  const requests = await deleteInBatches(db, { table: oauthRequests, where: sql`expires_at < now()`, orderBy: sql`expires_at` });
  // Access and refresh tokens a refresh lifetime past their expiry: a used refresh token presented again
  // until then still revokes its grant (an unused or access token past its expiry is refused either way).
  const tokens = await deleteInBatches(db, {
    table: oauthTokens,
    where: sql`expires_at < now() - make_interval(secs => ${KEEP_EXPIRED_SECONDS})`,
    orderBy: sql`expires_at`,
  });
  // Grants with no token left (their tokens went above, or a code never redeemed), with their codes.
  const grants = await deleteInBatches(db, {
    table: oauthGrants,
    where: sql`created_at < now() - make_interval(secs => ${KEEP_EXPIRED_SECONDS})
      and not exists (select 1 from oauth_tokens t where t.grant_id = oauth_grants.id)`,
    orderBy: sql`id`,
    limit: 1000,
  });
  // Clients with no grant and no pending request: a registration never consented to, a metadata document's cached copy.
  const clients = await deleteInBatches(db, {
    table: oauthClients,
    where: sql`not exists (select 1 from oauth_grants g where g.client_id = oauth_clients.id)
      and not exists (select 1 from oauth_requests r where r.client_id = oauth_clients.id)
      and case kind
        when 'dcr' then granted_at is null and created_at < now() - make_interval(secs => ${UNGRANTED_CLIENT_SECONDS})
        else fetched_at < now() - make_interval(secs => ${CIMD_CLIENT_SECONDS}) end`,
    orderBy: sql`id`,
    limit: 1000,
  });
  return { requests, tokens, grants, clients };
}
