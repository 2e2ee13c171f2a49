import type { Context } from "hono";
import { API_PREFIX } from "./api-prefix";

/**
 * The API reference page. Its script is the pinned `@scalar/api-reference` standalone build, served by
 * Workers static assets from `public/` (wrangler.toml `[assets]`), never from a CDN: the page works offline
 * and under its own strict policy (no inline script, nothing from another origin).
 */
export const DOCS_SCRIPT = `${API_PREFIX}/docs/scalar.js`;
export const DOCS_INIT_SCRIPT = `${API_PREFIX}/docs/init.js`;

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>CRM API reference</title>
  </head>
  <body>
    <div id="app" data-url="${API_PREFIX}/openapi.json"></div>
    <script src="${DOCS_SCRIPT}"></script>
    <script src="${DOCS_INIT_SCRIPT}"></script>
  </body>
</html>
`;

/** Scalar sets styles at run time (inline style attributes and <style> elements), hence 'unsafe-inline' for styles only. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const docsPage = (c: Context) => c.html(page, 200, { "Content-Security-Policy": CSP });
