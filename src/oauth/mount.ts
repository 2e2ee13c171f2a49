import type { Context, Next } from "hono";
import { API_PREFIX } from "../http/api-prefix";
import type { AppEnv } from "../http/context";
import { oauthCors } from "../http/cors";
import type { Router } from "../http/router";
import { resourceMetadataUrl } from "./protocol";

/** The MCP endpoint for static tokens (docs/mcp.md): its 401 never points to OAuth, for clients that drop their headers once a server offers it. */
export const TOKEN_ONLY_MCP_PATH = `${API_PREFIX}/mcp/token-only`;

/**
 * Every 401 of the API and of the MCP endpoint says where to find the authorization server (RFC 9728
 * §5.1): `WWW-Authenticate: Bearer resource_metadata="…"`, the MCP endpoint's own metadata for it.
 * The token-only MCP URL keeps the plain challenge.
 */
export async function advertiseOAuth(c: Context<AppEnv>, next: Next) {
  await next();
  if (c.res.status !== 401 || c.req.path === TOKEN_ONLY_MCP_PATH) return;
  const origin = new URL(c.req.url).origin;
  const path = c.req.path === `${API_PREFIX}/mcp` ? `${API_PREFIX}/mcp` : API_PREFIX;
  c.res.headers.set("WWW-Authenticate", `Bearer realm="api", resource_metadata="${resourceMetadataUrl(origin, path)}"`);
}

/** The endpoints browser-based clients call from their own origin: CORS for any origin, no credentials (`oauthCors`). */
const CROSS_ORIGIN_PATHS = [
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/*",
  "/oauth/register",
  "/oauth/token",
  "/oauth/revoke",
];

/**
 * The authorization server's endpoints (docs/mcp.md#oauth), each module imported on its first request:
 * an isolate serving the API never loads them. `/oauth/authorize` stays same-origin (no CORS).
 */
export function mountOAuth(app: Router): void {
  for (const path of CROSS_ORIGIN_PATHS) app.use(path, oauthCors);
  const lazy =
    <M>(load: () => Promise<M>, pick: (m: M) => (c: Context<AppEnv>) => Response | Promise<Response>) =>
    async (c: Context<AppEnv>) =>
      pick(await load())(c);
  const metadata = () => import("./metadata");
  const tokens = () => import("./token");
  app.get(
    "/.well-known/oauth-authorization-server",
    lazy(metadata, (m) => m.authorizationServer),
  );
  app.get(
    "/.well-known/oauth-protected-resource",
    lazy(metadata, (m) => m.protectedResource),
  );
  app.get(
    "/.well-known/oauth-protected-resource/*",
    lazy(metadata, (m) => m.protectedResource),
  );
  app.get(
    "/oauth/authorize",
    lazy(
      () => import("./authorize"),
      (m) => m.authorize,
    ),
  );
  app.post(
    "/oauth/register",
    lazy(
      () => import("./clients"),
      (m) => m.registerClient,
    ),
  );
  app.post(
    "/oauth/token",
    lazy(tokens, (m) => m.token),
  );
  app.post(
    "/oauth/revoke",
    lazy(tokens, (m) => m.revoke),
  );
}
