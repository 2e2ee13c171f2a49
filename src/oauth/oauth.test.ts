import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { apiUrl, call, newCompany, sql, waitFor } from "../../test/support/api";
import { callTool, mcpClient } from "../../test/support/mcp";
import { consent, MemoryOAuthProvider, oauthFlows, REDIRECT } from "../../test/support/oauth";
import { signedIn } from "../../test/support/settings";
import { REGISTRATIONS_PER_HOUR } from "./clients";

/* The OAuth 2.1 authorization server against the Worker in workerd over HTTP, driven by the MCP SDK's own client. */

const origin = () => apiUrl().replace(/\/api\/v1$/, "");
const mcpUrl = () => new URL(`${apiUrl()}/mcp`);

/** An MCP client with the SDK's OAuth provider (no static header). */
async function connect(provider: MemoryOAuthProvider) {
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  await client.connect(transport);
  return client;
}

/** The SDK's whole flow: 401 → discovery → registration → authorize → consent (over HTTP, the session's cookie) → code → tokens. */
async function authorized(companyId: number, opts: { scope?: "read" | "write"; provider?: MemoryOAuthProvider } = {}) {
  const { client: settings, user } = await signedIn(origin(), companyId);
  const provider = opts.provider ?? new MemoryOAuthProvider();
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  await expect(new Client({ name: "oauth-test", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  const { back, page } = await consent(settings, provider.authorizationUrl!, { scope: opts.scope });
  const code = back.searchParams.get("code");
  expect(code, back.toString()).toMatch(/^[0-9a-f]{64}$/);
  await transport.finishAuth(code!);
  return { provider, settings, user, back, page };
}

describe("OAuth 2.1 with the MCP SDK client", () => {
  it("discovers from the 401, registers, consents, gets tokens, lists and calls tools, refreshes, revokes, then 401", async () => {
    const co = await newCompany();
    await co.post("/clients", { company_name: "Oauth Outfitters" });
    // The 401 names the protected-resource metadata, which names this server.
    const unauthenticated = await fetch(mcpUrl(), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("www-authenticate")).toBe(
      `Bearer realm="api", resource_metadata="${origin()}/.well-known/oauth-protected-resource/api/v1/mcp"`,
    );

    const { provider, back, page } = await authorized(co.companyId);
    expect(back.origin + back.pathname).toBe(provider.redirectUrl);
    expect(back.searchParams.get("state")).toBe("state-of-the-test");
    expect(back.searchParams.get("iss")).toBe(origin());
    expect(page.res.headers.get("content-security-policy")).toContain("form-action 'self' http://127.0.0.1:8976");
    const first = provider.saved!;
    expect(first).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "write" });
    expect(first.access_token).toMatch(/^crm_at_[0-9a-f]{64}$/);

    const mcp = await connect(provider);
    const tools = await mcp.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("list_clients");
    const listed = await callTool(mcp, "list_clients", { q: "Oauth Outfitters" });
    expect(listed.isError).toBe(false);
    expect(listed.body.data.map((c: { company_name: string }) => c.company_name)).toEqual(["Oauth Outfitters"]);
    // The same token works on the REST API, as the company's.
    const me = await call("GET", "/me", { token: first.access_token });
    expect(me.status).toBe(200);
    expect(me.body.company.id).toBe(co.companyId);

    // Refresh (the SDK refreshes when it holds a refresh token): new tokens, the old refresh token used up.
    expect(await auth(provider, { serverUrl: mcpUrl() })).toBe("AUTHORIZED");
    const second = provider.saved!;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect((await call("GET", "/me", { token: second.access_token })).status).toBe(200);

    // RFC 7009 revocation ends the grant: every token it issued answers 401.
    const revoked = await fetch(`${origin()}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: second.refresh_token!, client_id: provider.client!.client_id }),
    });
    expect(revoked.status).toBe(200);
    for (const token of [first.access_token, second.access_token]) {
      const res = await call("GET", "/me", { token });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(
        `Bearer realm="api", resource_metadata="${origin()}/.well-known/oauth-protected-resource/api/v1"`,
      );
    }
    const [grant] = await sql<{ revoked: boolean }>("select revoked_at is not null as revoked from oauth_grants where company_id = $1", [
      co.companyId,
    ]);
    expect(grant.revoked).toBe(true);
  });
});

const { pkce, register, authorizeUrl, tokenRequest, codeFor, tokensFor } = oauthFlows(origin);

describe("OAuth attribution", () => {
  it("a grant's change names the grant as its actor, with the request's id", async () => {
    const co = await newCompany();
    const { client: settings } = await signedIn(origin(), co.companyId);
    const { body: client } = await register();
    const tokens = await tokensFor(settings, client.client_id, { scope: "write" });
    const made = await call("POST", "/clients", { token: tokens.access_token, body: { company_name: "Made by an app" } });
    expect(made.status).toBe(200);
    const [grant] = await sql<{ id: number }>("select id from oauth_grants where company_id = $1", [co.companyId]);
    const events = await sql<{ actor_type: string; actor_id: string; request_id: string }>(
      "select actor_type, actor_id, request_id from webhook_events where company_id = $1 and type = 'client.created'",
      [co.companyId],
    );
    expect(events).toEqual([{ actor_type: "oauth_grant", actor_id: String(grant.id), request_id: made.headers.get("x-request-id") }]);
    // The request log names the grant, its client and user; the grant reads it, the company's API token does not.
    const requestId = made.headers.get("x-request-id");
    const entry = await waitFor(
      "the grant's request log entry",
      () => call("GET", `/request-logs/${requestId}`, { token: tokens.access_token }),
      (res) => res.status === 200,
    );
    expect(entry.body).toMatchObject({ token_id: null, oauth_grant_id: grant.id, oauth_client_id: client.client_id, status: 200 });
    expect((await call("GET", `/request-logs/${requestId}`, { token: co.token })).status).toBe(404);
    // Only the POSTs: the polls above are the grant's requests too, and could fill a page.
    const listed = await call("GET", "/request-logs?method=POST", { token: tokens.access_token });
    expect(listed.body.data.map((e: { request_id: string }) => e.request_id)).toContain(requestId);
    expect(listed.body.data.every((e: { oauth_grant_id: number }) => e.oauth_grant_id === grant.id)).toBe(true);
  });
});

describe("OAuth refusals", () => {
  it("answers an unregistered redirect URI (an open-redirect attempt) itself, never redirecting; loopback URIs match on any port only", async () => {
    const { body: client } = await register();
    const base = {
      response_type: "code",
      client_id: client.client_id,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      state: "x",
    };
    for (const redirect_uri of [
      "https://evil.example/callback",
      "http://127.0.0.1:8976/other",
      `${REDIRECT}?extra=1`,
      "http://127.0.0.2:8976/oauth/callback",
    ]) {
      const res = await fetch(authorizeUrl({ ...base, redirect_uri }), { redirect: "manual" });
      expect(res.status, redirect_uri).toBe(400);
      expect(res.headers.get("location")).toBeNull();
    }
    const unknownClient = await fetch(authorizeUrl({ ...base, client_id: "crm_client_unknown", redirect_uri: REDIRECT }), {
      redirect: "manual",
    });
    expect(unknownClient.status).toBe(400);
    const otherPort = await fetch(authorizeUrl({ ...base, redirect_uri: "http://127.0.0.1:1234/oauth/callback" }), { redirect: "manual" });
    expect(otherPort.status).toBe(303);
    expect(otherPort.headers.get("location")).toMatch(/^\/settings\/oauth\/consent\/[0-9a-f]{64}$/);
    // Registration refuses redirect URIs that could not be matched safely.
    for (const uri of ["http://example.com/cb", "javascript:alert(1)", "https://app.example/cb#frag"]) {
      expect((await register({ redirect_uris: [uri] })).status, uri).toBe(400);
    }
    expect((await register({ token_endpoint_auth_method: "client_secret_basic" })).status).toBe(400);
  });

  it("limits registrations per address: the 21st in an hour is a 429 with Retry-After; another address still registers", async () => {
    const ip = `192.0.2.250-${Date.now()}`;
    const statuses: number[] = [];
    for (let i = 0; i < REGISTRATIONS_PER_HOUR; i++) statuses.push((await register({}, ip)).status);
    expect(statuses).toEqual(Array(REGISTRATIONS_PER_HOUR).fill(201));
    const refused = await register({}, ip);
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 429,
      body: { error: "too_many_requests", error_description: expect.any(String) },
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await register()).status).toBe(201);
  });

  it("refuses a request without PKCE or with plain, and a resource of another server, back at the client with state and iss", async () => {
    const { body: client } = await register();
    const base = { response_type: "code", client_id: client.client_id, redirect_uri: REDIRECT, state: "st" };
    const cases: [Record<string, string>, string][] = [
      [{}, "invalid_request"],
      [{ code_challenge: pkce().challenge, code_challenge_method: "plain" }, "invalid_request"],
      [{ code_challenge: pkce().challenge }, "invalid_request"],
      [{ code_challenge: pkce().challenge, code_challenge_method: "S256", resource: "https://other.example/api/v1" }, "invalid_target"],
      [{ code_challenge: pkce().challenge, code_challenge_method: "S256", scope: "admin" }, "invalid_scope"],
      [{ code_challenge: pkce().challenge, code_challenge_method: "S256", response_type: "token" }, "unsupported_response_type"],
    ];
    for (const [extra, error] of cases) {
      const res = await fetch(authorizeUrl({ ...base, ...extra }), { redirect: "manual" });
      expect(res.status, JSON.stringify(extra)).toBe(303);
      const back = new URL(res.headers.get("location")!);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(Object.fromEntries(back.searchParams)).toMatchObject({ error, state: "st", iss: origin() });
    }
  });

  it("refuses a wrong verifier, redirect URI, client or resource at the token endpoint, an expired code, and a reused code (revoking what it issued)", async () => {
    const co = await newCompany();
    const { client: settings } = await signedIn(origin(), co.companyId);
    const { body: client } = await register();
    const { body: other } = await register();
    const { code, verifier } = await codeFor(settings, client.client_id);
    const good = { grant_type: "authorization_code", code, code_verifier: verifier, client_id: client.client_id, redirect_uri: REDIRECT };
    expect((await tokenRequest({ ...good, code_verifier: pkce().verifier })).body.error).toBe("invalid_grant");
    expect((await tokenRequest({ ...good, code_verifier: "" })).body.error).toBe("invalid_request");
    expect((await tokenRequest({ ...good, redirect_uri: "http://127.0.0.1:9999/oauth/callback" })).body.error).toBe("invalid_grant");
    expect((await tokenRequest({ ...good, client_id: other.client_id })).body.error).toBe("invalid_grant");
    expect((await tokenRequest({ ...good, resource: "https://other.example/api/v1" })).body.error).toBe("invalid_target");
    expect((await tokenRequest({ ...good, grant_type: "password" })).body.error).toBe("unsupported_grant_type");
    const issued = await tokenRequest(good);
    expect(issued.status).toBe(200);
    expect((await call("GET", "/me", { token: issued.body.access_token })).status).toBe(200);
    // The code again: refused, and the tokens it issued stop working.
    const again = await tokenRequest(good);
    expect(again).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await call("GET", "/me", { token: issued.body.access_token })).status).toBe(401);
    expect(
      (await tokenRequest({ grant_type: "refresh_token", refresh_token: issued.body.refresh_token, client_id: client.client_id })).body
        .error,
    ).toBe("invalid_grant");

    const late = await codeFor(settings, client.client_id);
    await sql(
      "update oauth_codes set expires_at = now() - interval '1 second' where grant_id = (select max(id) from oauth_grants where company_id = $1)",
      [co.companyId],
    );
    const expired = await tokenRequest({ ...good, code: late.code, code_verifier: late.verifier });
    expect(expired).toMatchObject({
      status: 400,
      body: { error: "invalid_grant", error_description: "The authorization code has expired" },
    });
  });

  it("rotates refresh tokens; a reused refresh token revokes the grant, the newest tokens included", async () => {
    const co = await newCompany();
    const { client: settings } = await signedIn(origin(), co.companyId);
    const { body: client } = await register();
    const first = await tokensFor(settings, client.client_id);
    const refresh = (refresh_token: string) => tokenRequest({ grant_type: "refresh_token", refresh_token, client_id: client.client_id });
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect((await call("GET", "/me", { token: second.body.access_token })).status).toBe(200);
    const reused = await refresh(first.refresh_token);
    expect(reused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await call("GET", "/me", { token: second.body.access_token })).status).toBe(401);
    expect((await refresh(second.body.refresh_token)).body.error).toBe("invalid_grant");
  });

  it("a token works only on the resource (origin) it was issued for", async () => {
    const co = await newCompany();
    const { client: settings } = await signedIn(origin(), co.companyId);
    const { body: client } = await register();
    const tokens = await tokensFor(settings, client.client_id);
    expect((await call("GET", "/me", { token: tokens.access_token })).status).toBe(200);
    // The same Worker under another name is another resource.
    const elsewhere = apiUrl().replace("127.0.0.1", "localhost");
    expect(elsewhere).not.toBe(apiUrl());
    const res = await fetch(`${elsewhere}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(401);
  });

  it("a read grant (write asked, read chosen) reads but cannot call a write tool or a write operation", async () => {
    const co = await newCompany();
    const { client: settings } = await signedIn(origin(), co.companyId);
    const { body: client } = await register();
    const tokens = await tokensFor(settings, client.client_id, { scope: "read" });
    expect(tokens.scope).toBe("read");
    expect((await call("GET", "/clients", { token: tokens.access_token })).status).toBe(200);
    const write = await call("POST", "/clients", { token: tokens.access_token, body: { company_name: "Nope" } });
    expect(write.status).toBe(403);
    const mcp = await mcpClient(tokens.access_token);
    const tool = await callTool(mcp, "create_client", { company_name: "Nope" });
    expect(tool.isError).toBe(true);
    expect(tool.error?.code).toBe("forbidden");
    expect(await sql("select 1 from clients where company_id = $1", [co.companyId])).toEqual([]);
  });

  it("company B's grant never reaches company A's rows: the same answer as a row that does not exist", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const made = await a.post("/clients", { company_name: "A's customer" });
    expect(made.status).toBe(200);
    const id = made.body.client.id;
    const { client: settingsB } = await signedIn(origin(), b.companyId);
    const { body: client } = await register();
    const tokens = await tokensFor(settingsB, client.client_id);
    const foreign = await call("GET", `/clients/${id}`, { token: tokens.access_token });
    const missing = await call("GET", "/clients/2147483000", { token: tokens.access_token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe(missing.body.error.code);
    expect((await call("GET", "/clients", { token: tokens.access_token })).body.data).toEqual([]);
    const mcp = await mcpClient(tokens.access_token);
    const tool = await callTool(mcp, "get_client", { id });
    expect(tool.error?.code).toBe("not_found");
  });
});

describe("static tokens", () => {
  it("work on the token-only MCP URL, whose 401 never points to OAuth", async () => {
    const co = await newCompany();
    const url = `${apiUrl()}/mcp/token-only`;
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="api"');
    const client = new Client({ name: "static", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${co.token}` } } }),
    );
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // And on the OAuth-advertising URL, as before.
    expect((await (await mcpClient(co.token)).listTools()).tools.length).toBeGreaterThan(0);
  });
});

describe("Client ID Metadata Documents", () => {
  /** A client's metadata document served on 127.0.0.1 (the local stack's outbound-URL allowance, WEBHOOK_ALLOW_LOCAL_HTTP). */
  async function documentServer(doc: (url: string) => unknown) {
    let hits = 0;
    const server = createServer((req, res) => {
      hits++;
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(doc(url)));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { base, hits: () => hits, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it("takes an https-style client_id URL's document (fetched once, cached), shows its address on the consent page, and issues tokens", async () => {
    const served = await documentServer((url) => ({
      client_id: url,
      client_name: "Doc client",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
    }));
    try {
      const co = await newCompany();
      const { client: settings } = await signedIn(origin(), co.companyId);
      const clientId = `${served.base}/oauth/client.json`;
      const first = await codeFor(settings, clientId);
      expect(first.page.testId("client-address")).toBe(clientId);
      expect(first.page.testId("client-name")).toBe("Doc client");
      const tokens = await tokenRequest({
        grant_type: "authorization_code",
        code: first.code,
        code_verifier: first.verifier,
        client_id: clientId,
        redirect_uri: REDIRECT,
      });
      expect(tokens.status).toBe(200);
      expect((await call("GET", "/me", { token: tokens.body.access_token })).status).toBe(200);
      await codeFor(settings, clientId);
      expect(served.hits()).toBe(1);
    } finally {
      await served.close();
    }
  });

  it("refuses a client_id URL on a private address, of another scheme, without a path, or whose document names another client_id", async () => {
    const served = await documentServer(() => ({ client_id: "https://someone-else.example/client.json", redirect_uris: [REDIRECT] }));
    try {
      const base = { response_type: "code", redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: "S256" };
      for (const client_id of [
        "https://10.0.0.1/client.json",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/client.json",
        "https://192.168.1.20:8443/client.json",
        "https://internal.local/client.json",
        "http://example.com/client.json",
        "https://example.com",
        `${served.base}/client.json`,
      ]) {
        const res = await fetch(authorizeUrl({ ...base, client_id }), { redirect: "manual" });
        expect(res.status, client_id).toBe(400);
        expect(res.headers.get("location"), client_id).toBeNull();
      }
    } finally {
      await served.close();
    }
  });
});
