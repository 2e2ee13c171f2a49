/**
 * The build-time output the Worker serves (docs/bundle.md#built-at-build-time): the OpenAPI document's
 * JSON text, with ORIGIN_PLACEHOLDER where the serving origin goes, and the MCP tools derived from it.
 * wrangler.toml's [build] runs it before every bundle (`wrangler deploy`, `wrangler dev`, the tests'
 * and benchmarks' builds); `npm run openapi:build` runs it alone. Writes `.build/openapi.js`, which
 * wrangler.toml's [alias] maps `crm-build:openapi` to (typed in src/build-output.d.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { toolsOf } from "../../src/mcp/catalog";
import { ORIGIN_PLACEHOLDER, openApiDocumentText } from "../../src/openapi-document";

const root = path.resolve(import.meta.dirname, "../..");
const out = path.join(root, ".build/openapi.js");

const documentText = await openApiDocumentText(ORIGIN_PLACEHOLDER);
const toolsText = JSON.stringify([...toolsOf(JSON.parse(documentText))]);
// The tools are served as built, for every origin: none may say where it was served from.
if (toolsText.includes(ORIGIN_PLACEHOLDER)) throw new Error("an MCP tool's text names the document's origin");
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(
  out,
  [
    "// Written by tools/cli/openapi-build.ts at build time (wrangler.toml [build]); not committed.",
    `export const ORIGIN_PLACEHOLDER = ${JSON.stringify(ORIGIN_PLACEHOLDER)};`,
    `export const documentText = ${JSON.stringify(documentText)};`,
    `export const toolsText = ${JSON.stringify(toolsText)};`,
    "",
  ].join("\n"),
);
