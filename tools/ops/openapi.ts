import worker from "../../src/index";
import type { Bindings } from "../../src/platform/env";

/**
 * The API's OpenAPI document exactly as the Worker serves it at /api/v1/openapi.json: the Worker's
 * fetch handler is called in Node, nothing listens and no database is contacted.
 */
export async function openapiDocument(origin = "https://crm-api.example.com"): Promise<Record<string, unknown>> {
  // Only what the settings check needs: the document route never opens the database.
  const env = { DATABASE_URL: "postgres://unused@localhost/unused" } as Bindings;
  const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
  const res = await worker.fetch(new Request(`${origin}/api/v1/openapi.json`), env, ctx);
  if (res.status !== 200) throw new Error(`the Worker answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}
