/**
 * Stands in for the MCP SDK's ajv provider (wrangler.toml `[alias]` "../validation/ajv-provider.js"):
 * the SDK's `Server` imports it as its default JSON Schema validator, which would put ajv (about 35 KiB
 * gzip) in the bundle. Our server passes a validator of its own and validates no schema
 * (src/mcp/server.ts), so this class is never constructed; if it were, it throws.
 */
export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error("ajv is not in the Worker bundle: give the MCP Server a jsonSchemaValidator");
  }
}
