import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newCompany } from "../../test/support/api";
import { type BrowserSession, openBrowser } from "../../test/support/browser";
import { newSettingsUser, TEST_PASSWORD } from "../../test/support/settings";

/**
 * The token walkthrough in Chromium (issue 39's "done when"): a new owner signs in, makes a read token
 * shown once, calls the API with the token read from the page, rolls it with an overlap (both work),
 * revokes both and sees 401, with no console error and no CSP violation on the way.
 */
const origin = () => new URL(inject("apiUrl")).origin;

/** `GET /api/v1/clients` with `token`: its status. */
const clientsStatus = async (token: string) => {
  const res = await fetch(`${origin()}/api/v1/clients`, { headers: { authorization: `Bearer ${token}` } });
  await res.body?.cancel();
  return res.status;
};

let browser: BrowserSession;
beforeAll(async () => {
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
});

// Sized as the settings walk's steps (password hashes and Chromium on a loaded machine).
describe.sequential("tokens in a browser", { timeout: 120_000 }, () => {
  let first = "";
  let rolled = "";
  const tokenName = `integrator ${Date.now()}`;

  /** The row of the token with this id (rows carry `data-token-id`). */
  const row = async (token: string) => {
    const { page } = browser;
    const ids = await page.getByTestId("token-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-token-id")));
    const lastFours = await page.getByTestId("last-four").allTextContents();
    const i = lastFours.indexOf(`…${token.slice(-4)}`);
    expect(i).toBeGreaterThanOrEqual(0);
    return { id: ids[i], locator: page.locator(`[data-testid="token-row"][data-token-id="${ids[i]}"]`) };
  };

  it("a new owner signs in through the setup link", async () => {
    const company = await newCompany({ name: `Token Browser Shop ${Date.now()}` });
    const made = await newSettingsUser(origin(), company.companyId, "owner");
    const { page } = browser;

    await page.goto(made.setup_url);
    await page.getByLabel("New password", { exact: true }).fill(TEST_PASSWORD);
    await page.getByLabel("The same password again").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    // The area opens on the Tokens page.
    await page.waitForURL(/\/settings\/tokens$/);
    expect(browser.problems).toEqual([]);
  });

  it("creates a read token, shown once", async () => {
    const { page } = browser;
    await page.getByLabel("Name").fill(tokenName);
    await page.getByLabel("Scope").selectOption("read");
    await page.getByLabel("Expires").selectOption("30");
    await page.getByRole("button", { name: "Create token" }).click();
    await expect.poll(() => page.getByTestId("new-token").textContent()).toMatch(/^[0-9a-f]{64}$/);
    first = (await page.getByTestId("new-token").textContent()) ?? "";
    // The copy button is the script's: shown only where it works. The deferred script may still be
    // loading when the text is there, so wait (Playwright's 30 s) for it to show the button.
    await page.getByRole("button", { name: "Copy token" }).waitFor({ state: "visible" });
    expect(browser.problems).toEqual([]);
  });

  it("the token read from the page calls the API", async () => {
    expect(await clientsStatus(first)).toBe(200);
    // Shown once: the list page does not show it again.
    const { page } = browser;
    await page.goto(`${origin()}/settings/tokens`);
    expect(await page.content()).not.toContain(first);
    expect(await page.getByTestId("new-token").count()).toBe(0);
  });

  it("rolls it with an overlap: the new token works and so does the old one", async () => {
    const { page } = browser;
    const r = await row(first);
    await r.locator.getByLabel("Old token keeps working for").selectOption("1h");
    await r.locator.getByTestId("roll").click();
    await page.waitForURL(new RegExp(`/settings/tokens/${r.id}/roll$`));
    await expect.poll(() => page.getByTestId("new-token").textContent()).toMatch(/^[0-9a-f]{64}$/);
    rolled = (await page.getByTestId("new-token").textContent()) ?? "";
    expect(rolled).not.toBe(first);
    expect(await clientsStatus(rolled)).toBe(200);
    expect(await clientsStatus(first)).toBe(200);
    expect(browser.problems).toEqual([]);
  });

  it("revokes both and each answers 401", async () => {
    const { page } = browser;
    for (const token of [first, rolled]) {
      const r = await row(token);
      await r.locator.getByTestId("revoke").click();
      await page.waitForURL(new RegExp(`/settings/tokens/${r.id}/revoke$`));
      expect(await page.getByTestId("notice-ok").textContent()).toMatch(/revoked/);
      expect(await (await row(token)).locator.getAttribute("data-status")).toBe("revoked");
      expect(await clientsStatus(token)).toBe(401);
    }
    expect(browser.problems).toEqual([]);
  });
});
