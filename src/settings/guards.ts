import { createMiddleware } from "hono/factory";
import type { SettingsEnv } from "./context";
import { csrfFailedPage } from "./errors";
import { sameToken } from "./secrets";

/**
 * The area's Content-Security-Policy: only this origin's files, no inline script or style, no
 * plugins, forms post to this origin only, and no page may frame it.
 */
export const SETTINGS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const HEADERS: Record<string, string> = {
  "Content-Security-Policy": SETTINGS_CSP,
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  // Pages show secrets (a new token, a setup link) and personal data: no cache keeps them.
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
};

/** Every answer of the area (pages, redirects, errors) carries the security headers. */
export const securityHeaders = createMiddleware<SettingsEnv>(async (c, next) => {
  c.set("clientIp", c.req.header("cf-connecting-ip") ?? "unknown");
  await next();
  for (const [name, value] of Object.entries(HEADERS)) c.res.headers.set(name, value);
  // A form whose answer redirects elsewhere (OAuth consent) needs that target in form-action: browsers check redirects too.
  const extra = c.get("formActionExtra");
  if (extra) c.res.headers.set("Content-Security-Policy", SETTINGS_CSP.replace("form-action 'self'", `form-action 'self' ${extra}`));
  // Served over https (deployed): browsers keep to https for the host from then on.
  if (new URL(c.req.url).protocol === "https:") c.res.headers.set("Strict-Transport-Security", "max-age=31536000");
});

/**
 * A state-changing form must carry the page's CSRF token in `_csrf` (set by `requireUser` or
 * `visitorCsrf` before this runs); otherwise the 403 page, and nothing is changed.
 */
export const checkCsrf = createMiddleware<SettingsEnv>(async (c, next) => {
  const expected = c.get("csrfToken");
  const type = c.req.header("content-type") ?? "";
  const form = /^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type) ? await c.req.parseBody() : {};
  const sent = form._csrf;
  if (!expected || typeof sent !== "string" || !(await sameToken(sent, expected))) return csrfFailedPage(c);
  return next();
});

/** A form field as text ("" when missing or a file). */
export async function field(c: { req: { parseBody(): Promise<Record<string, unknown>> } }, name: string): Promise<string> {
  const value = (await c.req.parseBody())[name];
  return typeof value === "string" ? value : "";
}
