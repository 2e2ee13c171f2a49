/**
 * Writes the API's OpenAPI document to a file, as the Worker serves it at /api/v1/openapi.json
 * (the Worker's fetch handler called in Node: nothing listens and no database is contacted).
 * `npm run openapi -- <file> [--origin https://api.example.com]`; `npm run lint:openapi` lints it with Spectral.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { openapiDocument } from "../ops/openapi";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { origin: { type: "string", default: "https://crm-api.example.com" } },
});

const file = positionals[0];
if (!file) throw new Error("usage: npm run openapi -- <file> [--origin https://api.example.com]");

const document = await openapiDocument(values.origin);
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
