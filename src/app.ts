import type { Context } from "hono";
import { API_PREFIX } from "./http/api-prefix";
import { requireBearer } from "./http/auth";
import { loadConfig } from "./http/config";
import type { AppEnv } from "./http/context";
import { corsPolicy } from "./http/cors";
import { docsPage } from "./http/docs-page";
import { errorBody, onError } from "./http/errors";
import { drainUnreadBody } from "./http/json-body";
import { mountLazy } from "./http/lazy-resource";
import { addLazyRoutes } from "./http/lazy-route";
import { paramsGuard } from "./http/params-guard";
import { requestContext, requestId } from "./http/request-context";
import { refuseLongTarget } from "./http/request-limits";
import { requestLog } from "./http/request-log";
import { createRouter } from "./http/router";
import { advertiseOAuth, mountOAuth } from "./oauth/mount";
import { RESOURCES, WEBHOOK_EVENTS } from "./resources";
import { mountApprovalPage, mountSettings } from "./settings/mount";

const PUBLIC_PATHS = new Set(["/openapi.json", "/docs", ...RESOURCES.flatMap((r) => r.publicPaths ?? [])]);

/** The v1 API: paths in its OpenAPI document are relative to the server base `<origin>/api/v1`. */
function createApi() {
  // No onError of its own: the app's (the same function) answers an error where it is thrown, and a
  // mounted router with an onError of its own gets each handler wrapped in one more compose per request.
  const api = createRouter();
  // First, so an entry's duration covers the whole request (docs/request-logs.md); it sends after the answer.
  api.use("*", requestLog);
  // The header's shape only; the token lookup is route middleware (createAuthRoute), after the body.
  api.use("*", async (c, next) => (PUBLIC_PATHS.has(c.req.path.slice(API_PREFIX.length)) ? next() : requireBearer(c, next)));
  api.use("*", paramsGuard);
  // Each resource's routes, each route's file imported on its first request (http/lazy-route.ts); a router is mounted as it is.
  for (const resource of RESOURCES) {
    if ("routes" in resource) addLazyRoutes(api, resource.prefix, resource.routes(WEBHOOK_EVENTS));
    else api.route("/", resource.router);
  }
  // The MCP endpoint (docs/mcp.md), loaded on its first request: its tools run the operations above as
  // requests through this app. Not a resource: it adds no operation to the document.
  mountLazy(api, { prefix: "/mcp", load: async () => (await import("./mcp")).createMcpApi(fetchApp) }, noRoute);

  // Built at build time (src/openapi-document.ts, docs/bundle.md#built-at-build-time): served with this origin.
  api.get("/openapi.json", async (c) =>
    c.body(await servedDocument(new URL(c.req.url).origin), 200, { "Content-Type": "application/json" }),
  );
  api.get("/docs", docsPage);
  return api;
}

/** The last origin's document text: the build's, with that origin in place of its placeholder. */
let served: { origin: string; text: string } | undefined;

async function servedDocument(origin: string): Promise<string> {
  if (served?.origin !== origin) {
    const { ORIGIN_PLACEHOLDER, documentText } = await import("crm-build:openapi");
    // As JSON.stringify writes the origin, so the text is the document built for it, byte for byte.
    served = { origin, text: documentText.replaceAll(ORIGIN_PLACEHOLDER, JSON.stringify(origin).slice(1, -1)) };
  }
  return served.text;
}

export function createApp() {
  const app = createRouter();
  const api = createApi();
  app.onError(onError);
  app.use("*", drainUnreadBody);
  app.use("*", requestId);
  app.use("*", loadConfig);
  app.use("*", requestContext);
  // The API's CORS for CORS_ALLOWED_ORIGINS; the OAuth endpoints have their own (src/oauth/mount.ts), the pages none.
  app.use(`${API_PREFIX}/*`, corsPolicy);
  // Every 401 of the API names the OAuth metadata (src/oauth/mount.ts).
  app.use(`${API_PREFIX}/*`, advertiseOAuth);
  app.route(API_PREFIX, api);
  // The OAuth 2.1 authorization server (docs/mcp.md#oauth), each endpoint loaded on its first request.
  mountOAuth(app);
  // The developers' settings area (docs/settings.md), loaded on its first request.
  mountSettings(app);
  // Proof approvals' public page (docs/approvals.md), loaded on its first request.
  mountApprovalPage(app);
  app.notFound((c) => noRoute(c, app.routes));
  return app;
}

/** No route matched: 405 when the path is known under another method, 404 otherwise. */
function noRoute(c: Context<AppEnv>, routes: { method: string; path: string }[]) {
  return (
    methodNotAllowed(c, routes) ?? c.json(errorBody(c.get("requestId"), "not_found", `No route for ${c.req.method} ${c.req.path}`), 404)
  );
}

/** Hono answers 404 for a known path with another method; we say 405 with an Allow header. */
function methodNotAllowed(c: Context<AppEnv>, routes: { method: string; path: string }[]) {
  const allowed = new Set<string>();
  const segments = c.req.path.split("/");
  for (const route of routes) {
    if (route.method === "ALL" || route.path.includes("*")) continue;
    // Segment by segment (a parameter, `:id`, takes any non-empty one): linear in the path's length.
    const pattern = route.path.split("/");
    if (pattern.length === segments.length && pattern.every((p, i) => (p.startsWith(":") ? segments[i] !== "" : p === segments[i])))
      allowed.add(route.method);
  }
  if (!allowed.size) return undefined;
  c.header("Allow", [...allowed].join(", "));
  return c.json(
    errorBody(c.get("requestId"), "invalid_request", `Method ${c.req.method} is not allowed on ${c.req.path}`, { allow: [...allowed] }),
    405,
  );
}

export const app = createApp();

/**
 * The Worker's fetch (and the MCP tools' way in): a path or query string over its limit is answered
 * 414 before the app routes or reads anything (src/http/request-limits.ts); the rest goes to the app.
 */
export const fetchApp = (...[request, env, ctx]: Parameters<typeof app.fetch>) => refuseLongTarget(request) ?? app.fetch(request, env, ctx);
