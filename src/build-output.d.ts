/**
 * What the build writes for the Worker (tools/cli/openapi-build.ts, run by wrangler.toml's [build]);
 * wrangler.toml's [alias] maps the name to `.build/openapi.js`. Only the Worker bundle imports it.
 */
declare module "crm-build:openapi" {
  /** Stands for the serving origin in `documentText`. */
  export const ORIGIN_PLACEHOLDER: string;
  /** The OpenAPI document's JSON text as the Worker serves it, ORIGIN_PLACEHOLDER in place of the origin. */
  export const documentText: string;
  /** The MCP tools, `[name, Tool][]` as JSON (src/mcp/catalog.ts), derived from that document. */
  export const toolsText: string;
}
