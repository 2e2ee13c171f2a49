import { describe, expect, it } from "vitest";
import { apiUrl, newCompany } from "../../test/support/api";
import { oauthFlows, REDIRECT } from "../../test/support/oauth";
import { signedIn } from "../../test/support/settings";

/*
 * CORS of the authorization server for browser-based clients (the MCP Inspector, web MCP hosts): the
 * discovery documents, registration, token and revocation answer any origin, without credentials; the
 * authorization endpoint and the consent page (a cookie session) answer none.
 */

const origin = () => apiUrl().replace(/\/api\/v1$/, "");
const PAGE = "https://inspector.example";
const { pkce, register, authorizeUrl } = oauthFlows(origin);

const preflight = (path: string, method: string, headers: string) =>
  fetch(`${origin()}${path}`, {
    method: "OPTIONS",
    headers: { origin: PAGE, "access-control-request-method": method, "access-control-request-headers": headers },
  });

/** The CORS headers of an answer a script of another origin may read. */
function expectOpen(res: Response) {
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  expect(res.headers.get("access-control-allow-credentials")).toBeNull();
}

describe("OAuth CORS", () => {
  it("answers preflights of the discovery documents, registration, token and revocation for any origin", async () => {
    for (const [path, method, headers] of [
      ["/.well-known/oauth-authorization-server", "GET", "mcp-protocol-version"],
      ["/.well-known/oauth-protected-resource", "GET", "mcp-protocol-version"],
      ["/.well-known/oauth-protected-resource/api/v1/mcp", "GET", "mcp-protocol-version"],
      ["/oauth/register", "POST", "content-type"],
      ["/oauth/token", "POST", "content-type, authorization"],
      ["/oauth/revoke", "POST", "content-type"],
    ]) {
      const res = await preflight(path, method, headers);
      expect(res.status, path).toBe(204);
      expectOpen(res);
      expect(res.headers.get("access-control-allow-methods"), path).toContain(method);
      const allowed = res.headers.get("access-control-allow-headers")?.toLowerCase().split(",") ?? [];
      for (const h of headers.split(", ")) expect(allowed, path).toContain(h);
      expect(res.headers.get("access-control-max-age"), path).toBe("86400");
    }
  });

  it("gives their answers, errors included, Access-Control-Allow-Origin: *", async () => {
    const headers = { origin: PAGE, "mcp-protocol-version": "2025-11-25" };
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/api/v1/mcp"]) {
      const res = await fetch(`${origin()}${path}`, { headers });
      expect(res.status, path).toBe(200);
      expectOpen(res);
    }
    const unknown = await fetch(`${origin()}/.well-known/oauth-protected-resource/elsewhere`, { headers });
    expect(unknown.status).toBe(404);
    expectOpen(unknown);

    const registered = await fetch(`${origin()}/oauth/register`, {
      method: "POST",
      headers: { origin: PAGE, "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Browser client", redirect_uris: [REDIRECT] }),
    });
    expect(registered.status).toBe(201);
    expectOpen(registered);
    const form = { origin: PAGE, "content-type": "application/x-www-form-urlencoded" };
    const refused = await fetch(`${origin()}/oauth/token`, {
      method: "POST",
      headers: form,
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "nope", client_id: "nope" }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "invalid_grant" });
    expectOpen(refused);
    const revoked = await fetch(`${origin()}/oauth/revoke`, {
      method: "POST",
      headers: form,
      body: new URLSearchParams({ token: "nope", client_id: "nope" }),
    });
    expect(revoked.status).toBe(200);
    expectOpen(revoked);
  });

  it("gives the authorization endpoint and the consent page no CORS", async () => {
    const co = await newCompany();
    const { client: settings } = await signedIn(origin(), co.companyId);
    const { body: client } = await register();
    const url = authorizeUrl({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      state: "s",
    });
    const authorize = await fetch(url, { headers: { origin: PAGE }, redirect: "manual" });
    expect(authorize.status).toBe(303);
    expect(authorize.headers.get("access-control-allow-origin")).toBeNull();
    const consentPath = authorize.headers.get("location")!;
    const page = await settings.request("GET", consentPath, undefined, { origin: PAGE });
    expect(page.status).toBe(200);
    expect(page.res.headers.get("access-control-allow-origin")).toBeNull();
    for (const path of ["/oauth/authorize", consentPath]) {
      const res = await preflight(path, "POST", "content-type");
      expect(res.status, path).not.toBe(204);
      expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
      expect(res.headers.get("access-control-allow-methods"), path).toBeNull();
    }
  });
});
