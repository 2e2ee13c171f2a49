import type { Context } from "hono";
import { API_PREFIX } from "../http/api-prefix";
import { sha256Hex } from "../http/auth";
import type { AppEnv } from "../http/context";

/** Lifetimes (docs/mcp.md#oauth). An access token lives an hour; its grant is checked on every request. */
export const ACCESS_TOKEN_SECONDS = 3600;
/** A refresh token is used once; each use gives a new one for this long. */
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
/** An authorization code must be redeemed within a minute. */
export const CODE_SECONDS = 60;
/** An authorization request waits this long for sign-in and consent. */
export const REQUEST_SECONDS = 600;

/** The scopes: `read` (GET operations and read-only tools), `write` (everything). */
export const SCOPES = ["read", "write"] as const;

/** The authorization server's issuer identifier: this origin (RFC 8414, RFC 9207's `iss`). */
export const issuerOf = (c: Context<AppEnv>) => new URL(c.req.url).origin;

/** The protected-resource metadata URL of a resource of this origin (RFC 9728 §3.1: path inserted after the well-known part). */
export const resourceMetadataUrl = (origin: string, path: string = API_PREFIX) => `${origin}/.well-known/oauth-protected-resource${path}`;

/** 32 random bytes as hex. */
export function randomHex(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export const digestOf = (secret: string) => sha256Hex(secret);

/** The PKCE S256 challenge of a verifier (RFC 7636 §4.2): BASE64URL(SHA-256(ASCII(verifier))), unpadded. */
export async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  let binary = "";
  for (const b of digest) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=/g, "");
}

/** An OAuth error answer (RFC 6749 §5.2), never cached. */
export function oauthError(c: Context<AppEnv>, status: 400 | 401 | 429, error: string, description: string) {
  c.header("Cache-Control", "no-store");
  return c.json({ error, error_description: description }, status);
}

/** Loopback hosts, whose redirect URIs match on any port (RFC 8252 §7.3). */
const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Whether a requested redirect URI is one the client registered: the same string, or for an
 * `http` loopback URI the same but for the port (RFC 8252 §7.3).
 */
export function redirectMatches(registered: string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return false;
  }
  if (asked.protocol !== "http:" || !LOOPBACK.has(asked.hostname)) return false;
  return registered.some((r) => {
    try {
      const reg = new URL(r);
      return (
        reg.protocol === "http:" &&
        reg.hostname === asked.hostname &&
        reg.pathname === asked.pathname &&
        reg.search === asked.search &&
        !asked.hash &&
        !asked.username &&
        !asked.password
      );
    } catch {
      return false;
    }
  });
}

/** Schemes a redirect URI may never use. */
const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:", "about:"]);

/**
 * Why `uri` cannot be a redirect URI, or null: https, http on a loopback host (native apps, RFC 8252),
 * or an app's private-use scheme; never a fragment.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "not an absolute URI";
  }
  if (url.hash || uri.includes("#")) return "must not have a fragment";
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `the ${url.protocol} scheme is not allowed`;
  if (url.protocol === "http:" && !LOOPBACK.has(url.hostname)) return "http is allowed for loopback addresses only (use https)";
  return null;
}

/** `scope` as asked: the widest scope named; undefined when it names one we do not know. Empty: `write` (consent may narrow it). */
export function askedScope(scope: string | undefined): "read" | "write" | undefined {
  const names = (scope ?? "").split(" ").filter(Boolean);
  if (names.some((n) => !(SCOPES as readonly string[]).includes(n))) return undefined;
  return names.length === 0 || names.includes("write") ? "write" : "read";
}

/** The client's redirect URI with the answer's parameters and `iss` (RFC 9207). */
export function redirectWith(redirectUri: string, params: Record<string, string | null | undefined>, issuer: string): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) url.searchParams.set(k, v);
  url.searchParams.set("iss", issuer);
  return url.toString();
}
