import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Debian's chromium (`.ci/run` installs it when missing). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Headless, offline-quiet: no first-run pages, no background fetches to Google, no GPU. */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Console errors, uncaught page errors and CSP violations seen so far, one line each. */
  problems: string[];
  close(): Promise<void>;
}

/**
 * Chromium with a fresh profile (its own user-data-dir, removed on close), one page, and every console
 * error, uncaught error and Content-Security-Policy violation collected in `problems`: a browser test
 * ends with `expect(session.problems).toEqual([])`.
 */
export async function openBrowser(): Promise<BrowserSession> {
  const profile = mkdtempSync(path.join(tmpdir(), "crm-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 390, height: 844 },
  });
  const problems: string[] = [];
  // Reported by the page itself (a violation of the policy's own directives, with the blocked URL).
  // A string: this project's types are the Workers', without the DOM's.
  await context.addInitScript(`document.addEventListener("securitypolicyviolation", (e) => {
    console.error("CSP violation: " + e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " on " + e.documentURI);
  });`);
  const watch = (page: Page) => {
    page.on("console", (msg) => {
      if (msg.type() === "error") problems.push(`console error on ${page.url()}: ${msg.text()}`);
    });
    page.on("pageerror", (err) => problems.push(`uncaught error on ${page.url()}: ${err.message}`));
  };
  context.on("page", watch);
  const page = context.pages()[0] ?? (await context.newPage());
  watch(page);
  return {
    context,
    page,
    problems,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
