import { sql } from "drizzle-orm";
import type { Context } from "hono";
import { API_PREFIX } from "../http/api-prefix";
import type { AppEnv } from "../http/context";
import { resourcesOf } from "../http/grants";
import { findClient } from "./clients";
import { askedScope, issuerOf, REQUEST_SECONDS, randomHex, redirectMatches, redirectWith } from "./protocol";

/** Where the consent page is (src/settings/consent.tsx): behind the settings sign-in. */
export const CONSENT_PATH = "/settings/oauth/consent";

/** An answer for a request that names no client or redirect URI we can trust: never a redirect (no open redirect). */
const refusedHere = (c: Context<AppEnv>, message: string) => {
  c.header("Cache-Control", "no-store");
  return c.text(`This authorization request cannot be served: ${message}.`, 400);
};

/**
 * `GET /oauth/authorize`: the authorization-code request (OAuth 2.1 with PKCE S256 only). The client and
 * the redirect URI are checked first (an unknown client or an unregistered redirect URI is answered here,
 * never redirected to); every later problem goes back to the client with `error`, `state` and `iss`.
 * A valid request is kept for consent and the user is sent to the consent page (sign-in first).
 */
export async function authorize(c: Context<AppEnv>) {
  const q = (name: string) => c.req.query(name);
  const clientId = q("client_id");
  if (!clientId) return refusedHere(c, "client_id is missing");
  const client = await findClient(c, clientId);
  if (typeof client === "string") return refusedHere(c, client);
  const asked = q("redirect_uri");
  const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri) return refusedHere(c, "redirect_uri is missing");
  if (!redirectMatches(client.redirectUris, redirectUri)) return refusedHere(c, "redirect_uri is not one the client registered");

  const state = q("state") ?? null;
  const issuer = issuerOf(c);
  const fail = (error: string, description: string) =>
    c.redirect(redirectWith(redirectUri, { error, error_description: description, state }, issuer), 303);
  if (q("response_type") !== "code") return fail("unsupported_response_type", "Only response_type=code is supported");
  const challenge = q("code_challenge");
  if (!challenge) return fail("invalid_request", "code_challenge is required (PKCE)");
  if (q("code_challenge_method") !== "S256") return fail("invalid_request", "code_challenge_method must be S256");
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) return fail("invalid_request", "code_challenge must be a base64url SHA-256 digest");
  const scope = askedScope(q("scope"));
  if (!scope) return fail("invalid_scope", "The scopes are read and write");
  const resource = q("resource") ?? `${new URL(c.req.url).origin}${API_PREFIX}`;
  if (!resourcesOf(new URL(c.req.url).origin).includes(resource))
    return fail("invalid_target", "resource is not a resource of this server");

  const key = randomHex();
  await c.get("db").execute(sql`
    insert into oauth_requests (key, client_id, redirect_uri, scope, state, code_challenge, resource, expires_at)
    values (${key}, ${client.id}, ${redirectUri}, ${scope}, ${state}, ${challenge}, ${resource}, now() + make_interval(secs => ${REQUEST_SECONDS}))`);
  c.header("Cache-Control", "no-store");
  return c.redirect(`${CONSENT_PATH}/${key}`, 303);
}
