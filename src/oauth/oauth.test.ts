import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { apiUrl, call, newCompany, sql } from "../../test/support/api";
import { callTool } from "../../test/support/mcp";
import { consent, MemoryOAuthProvider } from "../../test/support/oauth";
import { signedIn } from "../../test/support/settings";

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
