/**
 * Writes the API's OpenAPI document to a file, as the Worker serves it at /api/v1/openapi.json:
 * the Worker's fetch handler is called in Node, nothing listens and no database is contacted.
 * `npm run openapi -- <file> [--origin https://api.example.com]`; `npm run lint:openapi` lints it with Spectral.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import worker from "../../src/index";
import type { Bindings } from "../../src/platform/env";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { origin: { type: "string", default: "https://crm-api.example.com" } },
});

const file = positionals[0];
if (!file) throw new Error("usage: npm run openapi -- <file> [--origin https://api.example.com]");

// Only what the settings check needs: the document route never opens the database.
const env = { DATABASE_URL: "postgres://unused@localhost/unused" } as Bindings;
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
const res = await worker.fetch(new Request(`${values.origin}/api/v1/openapi.json`), env, ctx);
if (res.status !== 200) throw new Error(`the Worker answered ${res.status}: ${await res.text()}`);
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(await res.json(), null, 2)}\n`);
