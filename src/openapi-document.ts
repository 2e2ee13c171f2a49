import { API_PREFIX } from "./http/api-prefix";
import { MAX_JSON_DEPTH } from "./http/json-body";
import { eagerRouter } from "./http/lazy-route";
import { createRouter } from "./http/openapi";
import { withResponseHeaders } from "./http/openapi-headers";
import { RESOURCES, WEBHOOK_EVENT_DECLARATIONS, WEBHOOK_EVENTS } from "./resources";
import { registerWebhookEvents } from "./webhooks/events-doc";

/**
 * The API's OpenAPI document, built from every resource's route contracts and event declarations.
 * Built at build time (`npm run openapi:build`, which wrangler.toml's [build] runs before every bundle)
 * and by the tools (`npm run openapi`), never in the Worker: the Worker serves the build's output with
 * the request's origin in place of ORIGIN_PLACEHOLDER (docs/bundle.md#built-at-build-time).
 */

/** Stands for the serving deployment's origin in the built document; a name no document text uses otherwise. */
export const ORIGIN_PLACEHOLDER = "https://origin.openapi-document.invalid";

/** Title, description and server of the document; paths come from the routes' contracts. */
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

/** The document for a deployment at `origin`, as an object. */
export async function buildOpenApiDocument(origin: string) {
  const all = createRouter();
  for (const resource of RESOURCES)
    all.route("/", "routes" in resource ? await eagerRouter(resource.routes(WEBHOOK_EVENTS)) : resource.router);
  // The event payloads (OpenAPI `webhooks`) use every resource's schemas.
  await registerWebhookEvents(all.openAPIRegistry, WEBHOOK_EVENT_DECLARATIONS);
  all.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description:
      "64 hexadecimal characters, bound to one company. Every request is scoped to that company. " +
      "A token's scope is `write` (every operation) or `read` (GET operations only; others answer 403 `forbidden`); " +
      "each operation names the scope it needs in `x-required-scope`.",
  });
  return withResponseHeaders(all.getOpenAPI31Document(documentInfo(origin)));
}

/** The document as the Worker serves it at /api/v1/openapi.json for `origin`: its JSON text, byte for byte. */
export async function openApiDocumentText(origin: string): Promise<string> {
  return JSON.stringify(await buildOpenApiDocument(origin));
}
