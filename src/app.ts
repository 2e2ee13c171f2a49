import type { Context } from "hono";
import { API_PREFIX } from "./http/api-prefix";
import { requireBearer } from "./http/auth";
import { loadConfig } from "./http/config";
import type { AppEnv } from "./http/context";
import { corsPolicy } from "./http/cors";
import { docsPage } from "./http/docs-page";
import { errorBody, onError } from "./http/errors";
import { drainUnreadBody, MAX_JSON_DEPTH } from "./http/json-body";
import { mountLazy } from "./http/lazy-resource";
import { createRouter } from "./http/openapi";
import { withResponseHeaders } from "./http/openapi-headers";
import { paramsGuard } from "./http/params-guard";
import { requestContext, requestId } from "./http/request-context";
import { RESOURCES, WEBHOOK_EVENT_DECLARATIONS, WEBHOOK_EVENTS } from "./resources";

const PUBLIC_PATHS = new Set(["/openapi.json", "/docs", ...RESOURCES.flatMap((r) => ("publicPaths" in r ? r.publicPaths : []))]);

/** Title, description and server of the OpenAPI document; paths come from the routes' contracts. */
const documentInfo = (origin: string) => ({
  openapi: "3.1.0",
  info: {
    title: "CRM integration API",
    version: "1.0.0",
    description:
      "Company-scoped CRM API for apparel-decoration shops. Every request carries `Authorization: Bearer <token>`; " +
      "the token's company scopes all reads and writes, and a body never carries a company id. " +
      "Errors are `{ error: { code, message, details, request_id } }` (`request_id` is the answer's `X-Request-Id`). Rate limit: 300 requests per 60 s sliding window per API key " +
      "(`X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` in Unix seconds; 429 `rate_limited` with `Retry-After`). " +
      "Request bodies are JSON (`Content-Type: application/json`) in UTF-8 (a declared charset other than UTF-8 is 415, bytes that are not UTF-8 are 400), " +
      "at most 1 MiB unless a route says otherwise (413 above), and must arrive within 10 s (408 otherwise); " +
      `strings and keys must not contain the NUL character (U+0000) or a lone surrogate escape (such as \\ud800), and JSON may nest at most ${MAX_JSON_DEPTH} levels (400 otherwise). ` +
      "CORS is off unless the operator lists allowed origins (`CORS_ALLOWED_ORIGINS`): then preflight requests are answered " +
      "and answers to those origins carry `Access-Control-Allow-Origin`.",
    contact: { name: "CRM API maintainers", url: `${origin}${API_PREFIX}/docs` },
  },
  servers: [
    {
      url: `${origin}${API_PREFIX}`,
      description: "The deployment that served this document (local, preview or production)",
      "x-internal": false,
    },
  ],
  tags: RESOURCES.flatMap((r) => r.tags),
});

/** The v1 API: paths in its OpenAPI document are relative to the server base `<origin>/api/v1`. */
function createApi() {
  // No onError of its own: the app's (the same function) answers an error where it is thrown, and a
  // mounted router with an onError of its own gets each handler wrapped in one more compose per request.
  const api = createRouter();
  // The header's shape only; the token lookup is route middleware (createAuthRoute), after the body.
  api.use("*", async (c, next) => (PUBLIC_PATHS.has(c.req.path.slice(API_PREFIX.length)) ? next() : requireBearer(c, next)));
  api.use("*", paramsGuard);
  // A lazy resource's folder is imported on the first request under its prefix; a router is mounted as it is.
  const routes = RESOURCES.map((resource) => {
    if ("load" in resource) return mountLazy(api, { prefix: resource.prefix, load: () => resource.load(WEBHOOK_EVENTS) }, noRoute);
    api.route("/", resource.router);
    return async () => resource.router;
  });
  // The MCP endpoint (docs/mcp.md), loaded on its first request: its tools run the operations above as
  // requests through this app. Not a resource: it adds no operation to the document.
  mountLazy(
    api,
    { prefix: "/mcp", load: async () => (await import("./mcp")).createMcpApi((request, env, ctx) => app.fetch(request, env, ctx)) },
    noRoute,
  );

  // Built once per origin and isolate, with every resource's routes: they do not change at run time.
  const documents = new Map<string, object>();
  api.get("/openapi.json", async (c) => {
    const origin = new URL(c.req.url).origin;
    if (!documents.has(origin)) {
      const all = createRouter();
      for (const resource of await Promise.all(routes.map((load) => load()))) all.route("/", resource);
      // The event payloads (OpenAPI `webhooks`) use every resource's schemas: loaded with them, not at start-up.
      await (await import("./webhooks/events-doc")).registerWebhookEvents(all.openAPIRegistry, WEBHOOK_EVENT_DECLARATIONS);
      all.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
        type: "http",
        scheme: "bearer",
        description:
          "64 hexadecimal characters, bound to one company. Every request is scoped to that company. " +
          "A token's scope is `write` (every operation) or `read` (GET operations only; others answer 403 `forbidden`); " +
          "each operation names the scope it needs in `x-required-scope`.",
      });
      documents.set(origin, withResponseHeaders(all.getOpenAPI31Document(documentInfo(origin))));
    }
    return c.json(documents.get(origin)!);
  });
  api.get("/docs", docsPage);
  return api;
}

export function createApp() {
  const app = createRouter();
  const api = createApi();
  app.onError(onError);
  app.use("*", drainUnreadBody);
  app.use("*", requestId);
  app.use("*", loadConfig);
  app.use("*", requestContext);
  app.use("*", corsPolicy);
  app.route(API_PREFIX, api);
  app.notFound((c) => noRoute(c, app.routes));
  return app;
}

/** No route matched: 405 when the path is known under another method, 404 otherwise. */
function noRoute(c: Context<AppEnv>, routes: { method: string; path: string }[]) {
  return methodNotAllowed(c, routes) ?? c.json(errorBody(c.var.requestId, "not_found", `No route for ${c.req.method} ${c.req.path}`), 404);
}

/** Hono answers 404 for a known path with another method; we say 405 with an Allow header. */
function methodNotAllowed(c: Context<AppEnv>, routes: { method: string; path: string }[]) {
  const allowed = new Set<string>();
  for (const route of routes) {
    if (route.method === "ALL" || route.path.includes("*")) continue;
    const pattern = new RegExp(`^${route.path.replace(/:[^/]+/g, "[^/]+")}$`);
    if (pattern.test(c.req.path)) allowed.add(route.method);
  }
  if (!allowed.size) return undefined;
  c.header("Allow", [...allowed].join(", "));
  return c.json(
    errorBody(c.var.requestId, "invalid_request", `Method ${c.req.method} is not allowed on ${c.req.path}`, { allow: [...allowed] }),
    405,
  );
}

export const app = createApp();
