import type { Context } from "hono";
import { API_PREFIX } from "../http/api-prefix";
import type { AppEnv } from "../http/context";
import { issuerOf, SCOPES } from "./protocol";

/**
 * `/.well-known/oauth-protected-resource[/api/v1[/mcp]]` (RFC 9728): the API (`/api/v1`) and its MCP
 * endpoint are resources of this origin, both served by the one authorization server here.
 */
export function protectedResource(c: Context<AppEnv>) {
  const origin = new URL(c.req.url).origin;
  const suffix = c.req.path.slice("/.well-known/oauth-protected-resource".length);
  const mcp = suffix === `${API_PREFIX}/mcp`;
  if (suffix !== "" && suffix !== API_PREFIX && !mcp) return c.json({ error: "not_found" }, 404);
  c.header("Cache-Control", "public, max-age=3600");
  return c.json({
    resource: mcp ? `${origin}${API_PREFIX}/mcp` : `${origin}${API_PREFIX}`,
    authorization_servers: [issuerOf(c)],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: mcp ? "CRM MCP server" : "CRM API",
    resource_documentation: `${origin}${API_PREFIX}/docs`,
  });
}

/** `/.well-known/oauth-authorization-server` (RFC 8414). */
export function authorizationServer(c: Context<AppEnv>) {
  const issuer = issuerOf(c);
  c.header("Cache-Control", "public, max-age=3600");
  return c.json({
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    scopes_supported: [...SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    service_documentation: `${issuer}${API_PREFIX}/docs`,
  });
}
