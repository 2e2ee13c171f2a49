/** A JSON Schema (or OpenAPI 3.1 schema) object. */
export type JsonSchema = { [keyword: string]: unknown };

/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is a schema (or a boolean). */
const SCHEMA_VALUES = new Set([
  "items",
  "additionalProperties",
  "additionalItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
]);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = new Set(["anyOf", "allOf", "oneOf", "prefixItems"]);

/**
 * An OpenAPI 3.1 schema of the document as a self-contained JSON Schema for MCP clients: every
 * `#/components/schemas/…` reference inlined (clients differ in how they resolve references, and a
 * tool's schema travels without the document), OpenAPI's `example` written as JSON Schema's
 * `examples`, and OpenAPI's `discriminator` (a hint for code generators; the `oneOf` says the same) left out. Everything else is JSON Schema already (OpenAPI 3.1 uses draft 2020-12), and uses only
 * keywords that draft-07 validators read the same way. A recursive schema is an error: none exists,
 * and inlining one would not end.
 */
export function toJsonSchema(schema: unknown, components: Record<string, unknown>, seen: readonly string[] = []): JsonSchema {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) throw new Error(`not a schema: ${JSON.stringify(schema)}`);
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "$ref") {
      const name = /^#\/components\/schemas\/(.+)$/.exec(String(value))?.[1];
      if (!name || !(name in components)) throw new Error(`unresolvable reference ${String(value)}`);
      if (seen.includes(name)) throw new Error(`recursive schema ${[...seen, name].join(" → ")}`);
      // The referenced schema first: keywords beside the reference (a description) take precedence.
      Object.assign(out, { ...toJsonSchema(components[name], components, [...seen, name]), ...out });
    } else if (keyword === "example") {
      out.examples ??= [value];
    } else if (keyword === "discriminator") {
      // OpenAPI only: JSON Schema validators in strict mode refuse it.
    } else if (SCHEMA_MAPS.has(keyword)) {
      out[keyword] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([name, s]) => [name, toJsonSchema(s, components, seen)]),
      );
    } else if (SCHEMA_VALUES.has(keyword) && typeof value === "object") {
      out[keyword] = toJsonSchema(value, components, seen);
    } else if (SCHEMA_LISTS.has(keyword)) {
      out[keyword] = (value as unknown[]).map((s) => toJsonSchema(s, components, seen));
    } else {
      out[keyword] = value;
    }
  }
  return out;
}
