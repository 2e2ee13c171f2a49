import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newCompany, sql } from "../../test/support/api";
import { type BrowserSession, openBrowser } from "../../test/support/browser";
import { newSettingsUser, TEST_PASSWORD, testEmail } from "../../test/support/settings";

/**
 * The settings area in Chromium (playwright-core driving Debian's chromium): a new owner follows the
 * setup link, sees the area, invites a user, changes the password and signs out, with no console error
 * and no CSP violation on the way.
 */
const origin = () => new URL(inject("apiUrl")).origin;

let browser: BrowserSession;
beforeAll(async () => {
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
});

// One walk through the area, in steps that share the browser. A step hashes a password or two (0.4 s of CPU each on a
// quiet machine) and drives Chromium: its limit is sized for a machine 3× slower under load.
describe.sequential("settings area in a browser", { timeout: 120_000 }, () => {
  let made: Awaited<ReturnType<typeof newSettingsUser>>;

  it("a new owner follows the setup link, chooses a password and sees the area", async () => {
    const company = await newCompany({ name: `Browser Print Shop ${Date.now()}` });
    made = await newSettingsUser(origin(), company.companyId, "owner");
    const { page } = browser;

    await page.goto(made.setup_url);
    await expect.poll(() => page.getByTestId("setup-email").textContent()).toBe(made.user.email);
    await page.getByLabel("New password", { exact: true }).fill(TEST_PASSWORD);
    await page.getByLabel("The same password again").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    // The area opens on the Tokens page.
    await page.waitForURL(/\/settings\/tokens$/);
    expect(await page.getByTestId("shop-name").textContent()).toContain("Browser Print Shop");

    // The skip link is the first stop of the keyboard, and visible when focused.
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.textContent?.trim()")).toBe("Skip to content");
    expect(browser.problems).toEqual([]);
  });

  it("invites a user and sees the link to pass on", async () => {
    const { page } = browser;

    await page.getByRole("link", { name: "Users" }).click();
    await page.waitForURL(/\/settings\/users$/);
    const invitee = testEmail("browser-invitee");
    await page.getByLabel("E-mail address").fill(invitee);
    await page.getByLabel("Role", { exact: true }).selectOption("developer");
    await page.getByRole("button", { name: "Invite" }).click();
    await expect.poll(() => page.getByTestId("setup-url").textContent()).toMatch(/\/settings\/setup\/[0-9a-f]{64}$/);
    // The copy button is the script's: shown only where it works. The deferred script may still be
    // loading when the text is there, so wait (Playwright's 30 s) for it to show the button.
    await page.getByRole("button", { name: "Copy link" }).waitFor({ state: "visible" });
    expect((await sql("select role from company_users where email = $1", [invitee]))[0]).toEqual({ role: "developer" });
    expect(browser.problems).toEqual([]);
  });

  it("changes the password, signs out, and signs in with the new one", async () => {
    const { page } = browser;

    await page.getByRole("link", { name: "Account" }).click();
    await page.getByLabel("Current password").fill(TEST_PASSWORD);
    await page.getByLabel("New password", { exact: true }).fill("a new browser passphrase");
    await page.getByLabel("The new password again").fill("a new browser passphrase");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.waitForURL(/\/settings\/account\?changed$/);
    expect(await page.getByTestId("notice-ok").textContent()).toMatch(/password is changed/);

    await page.getByTestId("sign-out").click();
    await page.waitForURL(/\/settings\/sign-in\?signed_out$/);
    expect(await page.getByTestId("notice-ok").textContent()).toMatch(/signed out/);
    await page.goto(`${origin()}/settings/account`);
    await page.waitForURL(/\/settings\/sign-in\?next=/);

    // Signing in again with the new password.
    await page.getByLabel("E-mail address").fill(made.user.email);
    await page.getByLabel("Password", { exact: true }).fill("a new browser passphrase");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/settings\/account$/);

    expect(browser.problems).toEqual([]);
  });

  it("the collector catches a CSP violation (the check above can fail)", async () => {
    const { page } = browser;
    await page.goto(`${origin()}/settings/sign-in`);
    const before = browser.problems.length;
    // An image from another origin, added by a script run through the debugging protocol (not blocked itself).
    await page.evaluate(`(() => {
      const img = document.createElement("img");
      img.src = "https://example.invalid/pixel.png";
      document.body.append(img);
    })()`);
    await expect.poll(() => browser.problems.slice(before).join("\n")).toMatch(/CSP violation: img-src/);
    browser.problems.length = before;
  });
});
