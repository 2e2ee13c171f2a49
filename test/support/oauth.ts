import { createHash, randomBytes } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { expect } from "vitest";
import { freshClientAddress } from "./api";
import type { SettingsClient } from "./settings";

/**
 * An MCP client's OAuth state kept in memory, as the official SDK's `OAuthClientProvider` asks: the
 * registered client, the tokens, the PKCE verifier, and the authorization URL it was sent to (a test
 * drives the consent with a settings-area client instead of a browser).
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  readonly clientMetadataUrl?: string;

  constructor(
    readonly redirectUrl = "http://127.0.0.1:8976/oauth/callback",
    opts: { clientMetadataUrl?: string; name?: string } = {},
  ) {
    this.clientMetadataUrl = opts.clientMetadataUrl;
    this.name = opts.name ?? "Test assistant";
  }
  private readonly name: string;

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state = () => "state-of-the-test";
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => {
    this.client = info;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (v: string) => {
    this.verifier = v;
  };
  codeVerifier = () => this.verifier!;
}

/**
 * What the user's browser does with an authorization URL: follows it to the consent page (through the
 * settings sign-in the client already passed), submits the form with `decision` and `scope`, and returns
 * where the answer sends it back (the client's redirect URI with `code` or `error`, `state` and `iss`).
 */
export async function consent(
  settings: SettingsClient,
  authorizationUrl: URL,
  opts: { decision?: "allow" | "deny"; scope?: "read" | "write" } = {},
) {
  const start = await settings.get(authorizationUrl.pathname + authorizationUrl.search);
  if (start.status !== 303 || !start.location) throw new Error(`authorize answered ${start.status}: ${start.html.slice(0, 300)}`);
  const page = await settings.get(start.location);
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${page.html.slice(0, 300)}`);
  // As a browser submits the form: the checked radio unless the test picks one.
  const checked = /<input[^>]*name="scope" value="(\w+)"[^>]*checked/.exec(page.html)?.[1];
  const answer = await settings.post(
    start.location,
    { decision: opts.decision ?? "allow", scope: opts.scope ?? checked ?? "" },
    { csrfFrom: page },
  );
  if (answer.status !== 303 || !answer.location) throw new Error(`consent answered ${answer.status}: ${answer.html.slice(0, 300)}`);
  return { page, back: new URL(answer.location) };
}

/** The redirect URI the tests' clients register (a loopback URI: any port matches). */
export const REDIRECT = "http://127.0.0.1:8976/oauth/callback";

/** The OAuth requests a client makes, by hand (no SDK), against the Worker at `origin()`. */
export function oauthFlows(origin: () => string) {
  /** A PKCE pair (RFC 7636): a verifier and its S256 challenge. */
  function pkce() {
    const verifier = randomBytes(32).toString("base64url");
    return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
  }

  /**
   * `POST /oauth/register`, by default from an address of its own (`CF-Connecting-IP`): registrations are
   * limited per address and hour, and the tests' registrations together would pass that limit.
   */
  async function register(body: Record<string, unknown> = {}, ip = freshClientAddress()) {
    const res = await fetch(`${origin()}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": ip },
      body: JSON.stringify({ client_name: "Manual client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", ...body }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  }

  const authorizeUrl = (params: Record<string, string | undefined>) => {
    const url = new URL(`${origin()}/oauth/authorize`);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    return url;
  };

  async function tokenRequest(fields: Record<string, string>) {
    const res = await fetch(`${origin()}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  /** A registered client's code, by the consent form (`scope`: what the user picks). */
  async function codeFor(
    settings: SettingsClient,
    clientId: string,
    opts: { scope?: "read" | "write"; redirectUri?: string; resource?: string } = {},
  ) {
    const { verifier, challenge } = pkce();
    const redirectUri = opts.redirectUri ?? REDIRECT;
    const url = authorizeUrl({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s1",
      scope: "read write",
      resource: opts.resource ?? `${origin()}/api/v1`,
    });
    const { back, page } = await consent(settings, url, { scope: opts.scope });
    return { code: back.searchParams.get("code")!, verifier, redirectUri, back, page };
  }

  async function tokensFor(settings: SettingsClient, clientId: string, opts: { scope?: "read" | "write" } = {}) {
    const { code, verifier } = await codeFor(settings, clientId, opts);
    const res = await tokenRequest({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { access_token: string; refresh_token: string; scope: string };
  }

  return { pkce, register, authorizeUrl, tokenRequest, codeFor, tokensFor };
}
