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
  callback.codes.push(new URL(req.url ?? "/", "http://127.0.0.1").searchParams);
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
});
