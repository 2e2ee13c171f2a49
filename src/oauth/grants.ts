import { sql } from "drizzle-orm";
import type { TokenScope } from "../db/schema/companies";
import { ACCESS_TOKEN_PREFIX, grantKey } from "../http/grants";
import { markRevoked, type RedisSettings } from "../http/revocations";
import type { Db } from "../platform/db";
import { rowsOf } from "../platform/sql-kit";
import { ACCESS_TOKEN_SECONDS, CODE_SECONDS, digestOf, REFRESH_TOKEN_SECONDS, randomHex } from "./protocol";

/** Grants: what a user allowed a client, and the codes and tokens issued under it. */

export interface PendingRequest {
  key: string;
  clientName: string;
  clientId: string;
  clientKind: "dcr" | "cimd";
  clientUri: string | null;
  redirectUri: string;
  scope: TokenScope;
  state: string | null;
  resource: string;
}

/** The authorization request waiting for consent under this key; undefined when unknown or expired. */
export async function pendingRequest(db: Db, key: string): Promise<PendingRequest | undefined> {
  const [row] = rowsOf<{
    key: string;
    name: string;
    client_id: string;
    kind: "dcr" | "cimd";
    client_uri: string | null;
    redirect_uri: string;
    scope: TokenScope;
    state: string | null;
    resource: string;
  }>(
    await db.execute(sql`
      select r.key, c.name, c.client_id, c.kind, c.client_uri, r.redirect_uri, r.scope, r.state, r.resource
      from oauth_requests r join oauth_clients c on c.id = r.client_id
      where r.key = ${key} and r.expires_at > now()`),
  );
  return (
    row && {
      key: row.key,
      clientName: row.name,
      clientId: row.client_id,
      clientKind: row.kind,
      clientUri: row.client_uri,
      redirectUri: row.redirect_uri,
      scope: row.scope,
      state: row.state,
      resource: row.resource,
    }
  );
}

/**
 * Consent given: in one statement the request is used up, the grant made (the scope chosen, never wider
 * than asked), the client marked as granted (the purge keeps it) and a code issued for it. Returns the code; undefined when the request was gone (used or expired).
 */
export async function approveRequest(
  db: Db,
  opts: { key: string; companyId: number; userId: number; scope: TokenScope },
): Promise<{ code: string } | undefined> {
  const code = randomHex();
  const rows = rowsOf<{ grant_id: number }>(
    await db.execute(sql`
      with request as (
        delete from oauth_requests where key = ${opts.key} and expires_at > now()
        returning client_id, redirect_uri, code_challenge, resource, scope
      ),
      granted as (
        insert into oauth_grants (company_id, user_id, client_id, scope, resource)
        select ${opts.companyId}::int, ${opts.userId}::int, client_id,
          case when scope = 'write' then ${opts.scope} else 'read' end, resource
        from request
        returning id
      ),
      marked as (
        update oauth_clients set granted_at = now() where id in (select client_id from request)
      ),
      coded as (
        insert into oauth_codes (grant_id, code_hash, redirect_uri, code_challenge, expires_at)
        select granted.id, ${await digestOf(code)}, request.redirect_uri, request.code_challenge, now() + make_interval(secs => ${CODE_SECONDS})
        from granted, request
        returning grant_id
      )
      select grant_id from coded`),
  );
  return rows.length ? { code } : undefined;
}

/** Consent refused: the request is used up. */
export async function denyRequest(db: Db, key: string): Promise<void> {
  await db.execute(sql`delete from oauth_requests where key = ${key}`);
}

export interface IssuedTokens {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: TokenScope;
}

/** New access and refresh tokens: their digests and the SQL that inserts them for the grant ids `from` yields. */
async function newTokens() {
  const access = ACCESS_TOKEN_PREFIX + randomHex();
  const refresh = randomHex();
  return { access, refresh, accessHash: await digestOf(access), refreshHash: await digestOf(refresh) };
}

type Outcome = { tokens: IssuedTokens; grantId: number } | { refused: string; grantId?: number; reused?: boolean };

/**
 * Redeems a code (checked by the caller against the client, redirect URI and verifier): marks it used
 * and issues the grant's first tokens in one statement. A code used before (or by a concurrent request)
 * is a reuse: the caller revokes the grant.
 */
export async function redeemCode(db: Db, codeId: number, scope: TokenScope): Promise<Outcome> {
  const t = await newTokens();
  const [row] = rowsOf<{ grant_id: number }>(
    await db.execute(sql`
      with used as (
        update oauth_codes set used_at = now() where id = ${codeId} and used_at is null and expires_at > now() returning grant_id
      ),
      issued as (
        insert into oauth_tokens (grant_id, kind, token_hash, expires_at)
        select grant_id, 'access', ${t.accessHash}, now() + make_interval(secs => ${ACCESS_TOKEN_SECONDS}) from used
        union all
        select grant_id, 'refresh', ${t.refreshHash}, now() + make_interval(secs => ${REFRESH_TOKEN_SECONDS}) from used
        returning grant_id
      )
      select grant_id from used`),
  );
  if (!row) return { refused: "The authorization code was already used", reused: true };
  return { grantId: row.grant_id, tokens: tokensOf(t, scope) };
}

const tokensOf = (t: Awaited<ReturnType<typeof newTokens>>, scope: TokenScope): IssuedTokens => ({
  access_token: t.access,
  token_type: "Bearer",
  expires_in: ACCESS_TOKEN_SECONDS,
  refresh_token: t.refresh,
  scope,
});

/**
 * Rotates a refresh token: marks it used and issues new tokens in one statement. Undefined when it was
 * used meanwhile (a reuse: the caller revokes the grant).
 */
export async function rotateRefreshToken(db: Db, tokenId: number, scope: TokenScope): Promise<IssuedTokens | undefined> {
  const t = await newTokens();
  const [row] = rowsOf<{ grant_id: number }>(
    await db.execute(sql`
      with used as (
        update oauth_tokens t set used_at = now()
        from oauth_grants g
        where t.id = ${tokenId} and t.kind = 'refresh' and t.used_at is null and t.expires_at > now()
          and g.id = t.grant_id and g.revoked_at is null
        returning t.grant_id
      ),
      issued as (
        insert into oauth_tokens (grant_id, kind, token_hash, expires_at)
        select grant_id, 'access', ${t.accessHash}, now() + make_interval(secs => ${ACCESS_TOKEN_SECONDS}) from used
        union all
        select grant_id, 'refresh', ${t.refreshHash}, now() + make_interval(secs => ${REFRESH_TOKEN_SECONDS}) from used
        returning grant_id
      )
      select grant_id from used`),
  );
  return row ? tokensOf(t, scope) : undefined;
}

/**
 * Revokes grants (every token they issued) where `where` holds, then marks them revoked in Redis so every
 * isolate refuses their cached tokens on the next request. Returns the ids revoked.
 */
export async function revokeGrants(db: Db, redis: RedisSettings, where: ReturnType<typeof sql>): Promise<number[]> {
  const ids = rowsOf<{ id: number }>(
    await db.execute(sql`update oauth_grants g set revoked_at = now() where ${where} and g.revoked_at is null returning g.id`),
  ).map((r) => r.id);
  if (ids.length) await markRevoked(redis, await Promise.all(ids.map(grantKey)));
  return ids;
}

export interface ConnectedApp {
  id: number;
  clientName: string;
  clientId: string;
  clientKind: "dcr" | "cimd";
  userEmail: string;
  scope: TokenScope;
  createdAt: string;
  lastUsedAt: string | null;
}

/** The company's live grants that issued tokens (consent given and the code redeemed), newest first. */
export async function listConnectedApps(db: Db, companyId: number): Promise<ConnectedApp[]> {
  const rows = rowsOf<{
    id: number;
    name: string;
    client_id: string;
    kind: "dcr" | "cimd";
    email: string;
    scope: TokenScope;
    created_at: string;
    last_used_at: string | null;
  }>(
    await db.execute(sql`
      select g.id, c.name, c.client_id, c.kind, u.email, g.scope, g.created_at, g.last_used_at
      from oauth_grants g join oauth_clients c on c.id = g.client_id join company_users u on u.id = g.user_id
      where g.company_id = ${companyId} and g.revoked_at is null
        and exists (select 1 from oauth_tokens t where t.grant_id = g.id)
      order by g.id desc limit 200`),
  );
  return rows.map((r) => ({
    id: r.id,
    clientName: r.name,
    clientId: r.client_id,
    clientKind: r.kind,
    userEmail: r.email,
    scope: r.scope,
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
  }));
}
