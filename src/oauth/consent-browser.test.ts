import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newCompany } from "../../test/support/api";
import { type BrowserSession, openBrowser } from "../../test/support/browser";
import { MemoryOAuthProvider } from "../../test/support/oauth";
import { signedIn, TEST_PASSWORD } from "../../test/support/settings";

/**
 * The OAuth consent in Chromium: the MCP SDK's client registers and builds the authorization URL; the
 * browser follows it to the settings sign-in, signs in, allows on the consent page (the form's answer
 * redirects to the client's loopback callback, which the page's CSP must let through), and the client
 * redeems the code it was sent. No console error and no CSP violation on the way.
 */
const origin = () => new URL(inject("apiUrl")).origin;

let browser: BrowserSession;
const callback = { codes: [] as URLSearchParams[] };
const server = createServer((req, res) => {
  // `/page`: a page of another origin than the Worker's, for the CORS test; anything else is the callback.
  if (req.url !== "/page") callback.codes.push(new URL(req.url ?? "/", "http://127.0.0.1").searchParams);
  res.setHeader("content-type", "text/html");
  res.end("<!doctype html><title>Connected</title><p>You can close this window.</p>");
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server.close(resolve));
});

describe("OAuth consent in a browser", { timeout: 120_000 }, () => {
  it("signs in, shows the client and the company, allows, and lands on the client's callback with a code the client redeems", async () => {
    const company = await newCompany({ name: `Consent Print Shop ${Date.now()}` });
    const { email } = await signedIn(origin(), company.companyId);
    const provider = new MemoryOAuthProvider(`http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, {
      name: "Browser assistant",
    });
    const mcpUrl = new URL(`${inject("apiUrl")}/mcp`);
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(new Client({ name: "browser-oauth", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

    const { page } = browser;
    await page.goto(provider.authorizationUrl!.toString());
    await page.waitForURL(/\/settings\/sign-in\?next=/);
    await page.getByLabel("E-mail address").fill(email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/settings\/oauth\/consent\/[0-9a-f]{64}$/);
    expect(await page.getByTestId("client-name").textContent()).toContain("Browser assistant");
    expect(await page.getByTestId("consent-company").textContent()).toContain("Consent Print Shop");
    expect(await page.getByTestId("scope-write").isChecked()).toBe(true);
    await page.getByTestId("allow").click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    const [params] = callback.codes;
    expect(params.get("state")).toBe("state-of-the-test");
    expect(params.get("iss")).toBe(origin());
    await transport.finishAuth(params.get("code")!);
    const client = new Client({ name: "browser-oauth", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(browser.problems).toEqual([]);
  });

  it("lets a page of another origin discover, register and call the token endpoint; not authorize, nor the MCP endpoint", async () => {
    const { page } = browser;
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/page`);
    // As the MCP SDK's discovery and registration ask, from the page's origin (a CORS request each, preflighted).
    const answers = await page.evaluate(`(async (origin) => {
      const metadata = await fetch(origin + "/.well-known/oauth-protected-resource/api/v1/mcp", { headers: { "MCP-Protocol-Version": "2025-11-25" } });
      const server = await fetch(origin + "/.well-known/oauth-authorization-server", { headers: { "MCP-Protocol-Version": "2025-11-25" } });
      const registered = await fetch(origin + "/oauth/register", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ client_name: "Web host", redirect_uris: ["https://host.example/callback"] }),
      });
      const token = await fetch(origin + "/oauth/token", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "grant_type=refresh_token&refresh_token=nope&client_id=nope",
      });
      return {
        resource: (await metadata.json()).resource,
        issuer: (await server.json()).issuer,
        registered: registered.status,
        token: [token.status, (await token.json()).error],
      };
    })(${JSON.stringify(origin())})`);
    expect(answers).toEqual({ resource: `${origin()}/api/v1/mcp`, issuer: origin(), registered: 201, token: [400, "invalid_grant"] });
    // Chromium logs the token endpoint's 400 (read by the page), and nothing else.
    expect(browser.problems).toEqual([expect.stringContaining("the server responded with a status of 400")]);
    browser.problems.length = 0;

    // The authorization endpoint and the MCP endpoint (no CORS_ALLOWED_ORIGINS here): the browser refuses the page their answers.
    const refused = await page.evaluate(`(async (origin) => {
      const outcome = (p) => p.then((r) => "read " + r.status, (e) => e.name);
      return [
        await outcome(fetch(origin + "/oauth/authorize?client_id=nope")),
        await outcome(fetch(origin + "/api/v1/mcp", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" })),
      ];
    })(${JSON.stringify(origin())})`);
    expect(refused).toEqual(["TypeError", "TypeError"]);
    expect(
      browser.problems.some((p) => p.includes("blocked by CORS policy")),
      browser.problems.join("\n"),
    ).toBe(true);
    expect(
      browser.problems.every((p) => /CORS policy|net::ERR_FAILED/.test(p)),
      browser.problems.join("\n"),
    ).toBe(true);
  });
});
