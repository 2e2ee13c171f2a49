/**
 * Turns the OpenAPI document into sdk/schema.d.ts with openapi-typescript. Node only (it runs the
 * TypeScript 5 compiler API that openapi-typescript prints with); the client in index.ts never imports it.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from "openapi-typescript";

/** Where the generated types live (committed; `npm run sdk:generate` rewrites it). */
export const SCHEMA_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "schema.d.ts");

/** The text of schema.d.ts for `document`: the same document always gives the same bytes. */
export async function schemaSource(document: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS(document as unknown as OpenAPI3, { silent: true });
  return COMMENT_HEADER + astToString(ast);
}
