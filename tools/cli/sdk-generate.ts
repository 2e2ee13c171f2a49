/**
 * Regenerates the typed client's types from the OpenAPI document the Worker serves:
 * `npm run sdk:generate` rewrites sdk/schema.d.ts; `npm run sdk:generate -- <file>` writes elsewhere
 * (sdk/schema.test.ts does, and fails when the committed file differs from that output).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { SCHEMA_FILE, schemaSource } from "../../sdk/generate";
import { openapiDocument } from "../ops/openapi";

const file = process.argv[2] ?? SCHEMA_FILE;
writeFileSync(file, await schemaSource(await openapiDocument()));
console.error(`wrote ${path.relative(process.cwd(), file)}`);
