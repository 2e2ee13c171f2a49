import { openApiDocumentText } from "../../src/openapi-document";

/**
 * The API's OpenAPI document exactly as the Worker serves it at /api/v1/openapi.json for `origin`
 * (the Worker serves the same builder's output, made at build time; test/openapi.test.ts compares them).
 */
export async function openapiDocument(origin = "https://crm-api.example.com"): Promise<Record<string, unknown>> {
  return JSON.parse(await openApiDocumentText(origin)) as Record<string, unknown>;
}
