/**
 * Schemas built on first use, not as their modules load (docs/bundle.md#routes-built-per-resource-on-first-use):
 * a route's first request builds only the schemas its contract validates with, and no isolate builds a
 * response schema. A module's top level builds no schema; only a route file's contract does.
 */

/** A schema (or an object of schemas) built on its first call, then the same one on every call. */
export function schemaOnce<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

/**
 * A JSON response's content, its schema built when read: the document's build reads it, the Worker
 * never does (`@hono/zod-openapi` uses response schemas for the document alone).
 */
export const jsonContent = <T>(schema: () => T) =>
  ({
    "application/json": {
      get schema() {
        return schema();
      },
    },
  }) as { "application/json": { schema: T } };
