import { Scalar } from "@scalar/hono-api-reference";
import { authenticate } from "./lib/auth";
import type { AppEnv } from "./lib/env";
import { errorBody, onError } from "./lib/errors";
import { jsonBody } from "./lib/json-body";
import { createRouter } from "./lib/openapi";
import { requestContext } from "./lib/request-context";
import { clientsApi } from "./routes/clients";
import type { Context } from "hono";

export const API_PREFIX = "/api/v1";
const PUBLIC_PATHS = new Set([`${API_PREFIX}/openapi.json`, `${API_PREFIX}/docs`]);

/** Resource routers, mounted under /api/v1. Add a resource here and nowhere else. */
const resources = [clientsApi];

export function createApp() {
  const app = createRouter();
  app.onError(onError);
  app.notFound((c) => methodNotAllowed(c, app.routes) ?? c.json(errorBody("not_found", `No route for ${c.req.method} ${c.req.path}`), 404));

  app.use("*", requestContext);
  app.use(`${API_PREFIX}/*`, async (c, next) => (PUBLIC_PATHS.has(c.req.path) ? next() : authenticate(c, next)));
  app.use(`${API_PREFIX}/*`, jsonBody());

  for (const resource of resources) app.route(API_PREFIX, resource);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "64 hexadecimal characters, bound to one company. Every request is scoped to that company.",
  });
  app.doc31(`${API_PREFIX}/openapi.json`, (c) => ({
    openapi: "3.1.0",
    info: {
      title: "CRM integration API",
      version: "1.0.0",
      description:
        "Company-scoped CRM API for apparel-decoration shops. Every request carries `Authorization: Bearer <token>`; " +
        "the token's company scopes all reads and writes. Errors are `{ error: { code, message, details } }`. " +
        "Rate limit: 300 requests per 60 s sliding window per API key (X-RateLimit-* headers; 429 with Retry-After).",
    },
    servers: [{ url: `${new URL(c.req.url).origin}${API_PREFIX}` }],
  }));
  app.get(`${API_PREFIX}/docs`, Scalar({ url: `${API_PREFIX}/openapi.json`, pageTitle: "CRM API reference" }));
  return app;
}

/** Hono answers 404 for a known path with another method; we say 405 with an Allow header. */
function methodNotAllowed(c: Context<AppEnv>, routes: { method: string; path: string }[]) {
  const allowed = new Set<string>();
  for (const route of routes) {
    if (route.method === "ALL" || route.path.includes("*")) continue;
    const pattern = new RegExp(`^${route.path.replace(/:[^/]+/g, "[^/]+").replace(/\{[^}]+\}/g, "[^/]+")}$`);
    if (pattern.test(c.req.path)) allowed.add(route.method);
  }
  if (!allowed.size) return undefined;
  c.header("Allow", [...allowed].join(", "));
  return c.json(errorBody("invalid_request", `Method ${c.req.method} is not allowed on ${c.req.path}`, { allow: [...allowed] }), 405);
}

export const app = createApp();
