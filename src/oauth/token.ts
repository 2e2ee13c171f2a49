import { sql } from "drizzle-orm";
import type { Context } from "hono";
import type { TokenScope } from "../db/schema/companies";
import type { AppEnv } from "../http/context";
import { rowsOf } from "../platform/sql-kit";
import { redeemCode, revokeGrants, rotateRefreshToken } from "./grants";
import { digestOf, oauthError, s256 } from "./protocol";

/** The form fields of a token or revocation request (`application/x-www-form-urlencoded`), or undefined. */
export async function formOf(c: Context<AppEnv>): Promise<Record<string, string> | undefined> {
  if (!/^application\/x-www-form-urlencoded/i.test(c.req.header("content-type") ?? "")) return undefined;
  const body = await c.req.parseBody();
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") fields[k] = v;
  return fields;
}

const answer = (c: Context<AppEnv>, tokens: object) => {
  c.header("Cache-Control", "no-store");
  c.header("Pragma", "no-cache");
  return c.json(tokens, 200);
};

/**
 * `POST /oauth/token`: `authorization_code` (with the PKCE verifier, the same redirect URI and client,
 * and the grant's resource when one is named) and `refresh_token` (rotated on every use). A code or
 * refresh token presented a second time revokes its grant: every token it issued stops working.
 */
export async function token(c: Context<AppEnv>) {
  const form = await formOf(c);
  if (!form) return oauthError(c, 400, "invalid_request", "The body must be application/x-www-form-urlencoded");
  if (form.grant_type === "authorization_code") return byCode(c, form);
  if (form.grant_type === "refresh_token") return byRefreshToken(c, form);
  return oauthError(c, 400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
}

const revokeGrant = (c: Context<AppEnv>, grantId: number) => revokeGrants(c.get("db"), c.get("config"), sql`g.id = ${grantId}`);

async function byCode(c: Context<AppEnv>, form: Record<string, string>) {
  if (!form.code || !form.client_id) return oauthError(c, 400, "invalid_request", "code and client_id are required");
  if (!form.code_verifier) return oauthError(c, 400, "invalid_request", "code_verifier is required (PKCE)");
  const [code] = rowsOf<{
    id: number;
    grant_id: number;
    used: boolean;
    expired: boolean;
    redirect_uri: string;
    code_challenge: string;
    client_id: string;
    resource: string;
    scope: TokenScope;
  }>(
    await c.get("db").execute(sql`
      select k.id, k.grant_id, k.used_at is not null as used, k.expires_at <= now() as expired, k.redirect_uri, k.code_challenge,
        c.client_id, g.resource, g.scope
      from oauth_codes k join oauth_grants g on g.id = k.grant_id join oauth_clients c on c.id = g.client_id
      where k.code_hash = ${await digestOf(form.code)}`),
  );
  if (!code) return oauthError(c, 400, "invalid_grant", "Unknown authorization code");
  if (code.used) {
    // A code seen twice was stolen or replayed: what it issued is revoked (OAuth 2.1 §4.1.3).
    await revokeGrant(c, code.grant_id);
    return oauthError(c, 400, "invalid_grant", "The authorization code was already used; the tokens it issued are revoked");
  }
  if (code.expired) return oauthError(c, 400, "invalid_grant", "The authorization code has expired");
  if (code.client_id !== form.client_id) return oauthError(c, 400, "invalid_grant", "The authorization code was issued to another client");
  if (form.redirect_uri !== code.redirect_uri)
    return oauthError(c, 400, "invalid_grant", "redirect_uri is not the one of the authorization request");
  if ((await s256(form.code_verifier)) !== code.code_challenge)
    return oauthError(c, 400, "invalid_grant", "code_verifier does not match the code_challenge");
  if (form.resource !== undefined && form.resource !== code.resource)
    return oauthError(c, 400, "invalid_target", "resource is not the one the grant was made for");
  const outcome = await redeemCode(c.get("db"), code.id, code.scope);
  if ("refused" in outcome) {
    await revokeGrant(c, code.grant_id);
    return oauthError(c, 400, "invalid_grant", outcome.refused);
  }
  return answer(c, outcome.tokens);
}

async function byRefreshToken(c: Context<AppEnv>, form: Record<string, string>) {
  if (!form.refresh_token || !form.client_id) return oauthError(c, 400, "invalid_request", "refresh_token and client_id are required");
  const [row] = rowsOf<{
    id: number;
    grant_id: number;
    used: boolean;
    expired: boolean;
    revoked: boolean;
    client_id: string;
    resource: string;
    scope: TokenScope;
  }>(
    await c.get("db").execute(sql`
      select t.id, t.grant_id, t.used_at is not null as used, t.expires_at <= now() as expired, g.revoked_at is not null as revoked,
        c.client_id, g.resource, g.scope
      from oauth_tokens t join oauth_grants g on g.id = t.grant_id join oauth_clients c on c.id = g.client_id
      where t.token_hash = ${await digestOf(form.refresh_token)} and t.kind = 'refresh'`),
  );
  if (!row || row.revoked) return oauthError(c, 400, "invalid_grant", "Unknown or revoked refresh token");
  if (row.client_id !== form.client_id) return oauthError(c, 400, "invalid_grant", "The refresh token was issued to another client");
  if (row.used) {
    // Rotation's reuse detection (OAuth 2.1 §4.3.1): one of two holders is not the client; the grant ends.
    await revokeGrant(c, row.grant_id);
    return oauthError(c, 400, "invalid_grant", "The refresh token was already used; the grant is revoked");
  }
  if (row.expired) return oauthError(c, 400, "invalid_grant", "The refresh token has expired");
  if (form.resource !== undefined && form.resource !== row.resource)
    return oauthError(c, 400, "invalid_target", "resource is not the one the grant was made for");
  if (form.scope?.split(" ").some((s) => s && s !== "read" && !(s === "write" && row.scope === "write")))
    return oauthError(c, 400, "invalid_scope", `The grant's scope is ${row.scope}`);
  const tokens = await rotateRefreshToken(c.get("db"), row.id, row.scope);
  if (!tokens) {
    await revokeGrant(c, row.grant_id);
    return oauthError(c, 400, "invalid_grant", "The refresh token was already used; the grant is revoked");
  }
  return answer(c, tokens);
}

/**
 * `POST /oauth/revoke` (RFC 7009): an access or refresh token of the client names its grant, which is
 * revoked with every token it issued. Answers 200 for an unknown token too, as the RFC says.
 */
export async function revoke(c: Context<AppEnv>) {
  const form = await formOf(c);
  if (!form?.token) return oauthError(c, 400, "invalid_request", "token is required");
  if (!form.client_id) return oauthError(c, 401, "invalid_client", "client_id is required");
  await revokeGrants(
    c.get("db"),
    c.get("config"),
    sql`g.id = (select t.grant_id from oauth_tokens t where t.token_hash = ${await digestOf(form.token)})
      and g.client_id = (select id from oauth_clients where client_id = ${form.client_id})`,
  );
  c.header("Cache-Control", "no-store");
  return c.body(null, 200);
}
