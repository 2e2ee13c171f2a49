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
  const ast = await openapiTS(typedAs(document) as unknown as OpenAPI3, { silent: true });
  return COMMENT_HEADER + astToString(ast);
}

/**
 * The document as the types say it: a value documented as "this schema, or anything" (`anyOf: [{ $ref }, {}]`,
 * a batch's item: the API answers an item that does not match with that item's 400) is typed as the schema
 * (`X | unknown` would be `unknown`), so a typed client sends items that match.
 */
function typedAs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(typedAs);
  if (!node || typeof node !== "object") return node;
  const { anyOf, ...rest } = node as { anyOf?: unknown[] };
  if (
    Array.isArray(anyOf) &&
    anyOf.length === 2 &&
    typeof (anyOf[0] as { $ref?: unknown })?.$ref === "string" &&
    Object.keys(anyOf[0] as object).length === 1 &&
    anyOf[1] &&
    typeof anyOf[1] === "object" &&
    Object.keys(anyOf[1]).length === 0
  )
    return { ...(typedAs(rest) as object), ...(anyOf[0] as object) };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, typedAs(v)]));
}
