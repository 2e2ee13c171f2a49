/**
 * Builds the Worker: wrangler.toml's [build] runs it before every `wrangler deploy` and `wrangler dev`
 * (which then upload or serve its output as it is: `no_bundle`), and the tests and benchmarks build
 * with it (test/support/worker.ts). docs/bundle.md says what each setting is for.
 *
 * 1. The build-time output (docs/bundle.md#built-at-build-time): the OpenAPI document's JSON text, with
 *    ORIGIN_PLACEHOLDER where the serving origin goes, and the MCP tools derived from it, written as a
 *    module (`.build/openapi.js`) that ALIASES maps `crm-build:openapi` to.
 * 2. The bundle: esbuild with wrangler's settings for Workers (target, conditions, loaders), minified,
 *    without `keepNames`, with ALIASES, and split into modules (`splitting`): each resource's routes,
 *    the MCP server and the queue consumers are chunks of their own, imported on first use, and the
 *    modules start-up needs are plain module code (one bundle file would wrap every module a dynamic
 *    import reaches in an init function, compiled a second time when it runs).
 *
 * `npm run worker:build -- [--entry <file>] [--outdir <dir>] [--minify=false]`: by default src/index.ts
 * into dist/worker (wrangler.toml's `main`), with the metafile as meta.json beside it.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { build, type Plugin } from "esbuild";
import { toolsOf } from "../../src/mcp/catalog";
import { ORIGIN_PLACEHOLDER, openApiDocumentText } from "../../src/openapi-document";

const root = path.resolve(import.meta.dirname, "../..");
const local = (file: string) => path.join(root, file);

/**
 * Modules swapped in the bundle: an import path, exactly as written, → the file that replaces it.
 * All stand-ins are in src/bundle-stand-ins/ (docs/bundle.md says what each saves, measured);
 * tools/cli/bundle-report.ts checks that each applied and that only the intended importers reached it.
 */
export const ALIASES: Record<string, string> = {
  // zod's namespace (`z`), imported by @hono/zod-openapi, which re-exports it whole: only the names the Worker uses.
  zod: local("src/bundle-stand-ins/zod-namespace.ts"),
  // zod's translations (zod v4/classic/external.js and v4/core/index.js import "../locales/index.js"): English only.
  "../locales/index.js": local("src/bundle-stand-ins/zod-locales.ts"),
  // zod's parser compiler, reached only through `z.*` and never called: without it esbuild reports its names as ambiguous imports.
  "./compile.js": local("src/bundle-stand-ins/zod-unbundled.ts"),
  // drizzle's builders for pgTable's callback form (every column type); our tables pass an object.
  "./columns/all.js": local("src/bundle-stand-ins/drizzle-column-builders.ts"),
  // The MCP SDK's default JSON Schema validator (ajv), which our MCP server does not use (src/mcp/server.ts).
  "../validation/ajv-provider.js": local("src/bundle-stand-ins/mcp-sdk-ajv.ts"),
  // OpenAPI metadata and document generation, which the Worker never reads: it serves the build's document (step 1).
  "@asteasolutions/zod-to-openapi": local("src/bundle-stand-ins/zod-to-openapi.ts"),
  // The build-time output (step 1).
  "crm-build:openapi": local(".build/openapi.js"),
};

/** Wrangler's [alias]: an import path matched exactly as written (relative ones included, which esbuild's own `alias` refuses). */
const aliasPlugin: Plugin = {
  name: "aliases",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => (args.kind !== "entry-point" && ALIASES[args.path] ? { path: ALIASES[args.path] } : undefined));
  },
};

/** Step 1: the OpenAPI document and the MCP tools the Worker serves. */
export async function writeOpenApiBuild(): Promise<void> {
  const documentText = await openApiDocumentText(ORIGIN_PLACEHOLDER);
  const toolsText = JSON.stringify([...toolsOf(JSON.parse(documentText))]);
  // The tools are served as built, for every origin: none may say where it was served from.
  if (toolsText.includes(ORIGIN_PLACEHOLDER)) throw new Error("an MCP tool's text names the document's origin");
  const out = ALIASES["crm-build:openapi"];
  mkdirSync(path.dirname(out), { recursive: true });
  // Written beside and renamed into place: builds of this checkout may run at once (the test suite's
  // files, `npm run dev`), and one must never bundle another's half-written file.
  const written = `${out}.${process.pid}.tmp`;
  writeFileSync(
    written,
    [
      "// Written by tools/cli/worker-build.ts at build time; not committed.",
      `export const ORIGIN_PLACEHOLDER = ${JSON.stringify(ORIGIN_PLACEHOLDER)};`,
      `export const documentText = ${JSON.stringify(documentText)};`,
      `export const toolsText = ${JSON.stringify(toolsText)};`,
      "",
    ].join("\n"),
  );
  renameSync(written, out);
}

/** Step 2: the bundle of `entry` into `outdir` (emptied first), split into modules; returns the entry module's path. */
export async function bundleWorker(opts: { entry: string; outdir: string; minify: boolean }): Promise<string> {
  mkdirSync(opts.outdir, { recursive: true });
  // force: a build running beside this one (two `npm run dev`) may have removed it already.
  for (const f of readdirSync(opts.outdir)) if (/\.(js|map)$|^meta\.json$/.test(f)) rmSync(path.join(opts.outdir, f), { force: true });
  const result = await build({
    entryPoints: { index: opts.entry },
    absWorkingDir: root,
    bundle: true,
    format: "esm",
    splitting: true,
    chunkNames: "chunk-[hash]",
    outdir: opts.outdir,
    // As wrangler bundles for Workers (its COMMON_ESBUILD_OPTIONS and conditions).
    target: "es2024",
    supported: { "import-source": true },
    loader: { ".js": "jsx", ".mjs": "jsx", ".cjs": "jsx" },
    conditions: ["workerd", "worker", "browser"],
    define: {
      "process.env.NODE_ENV": '"production"',
      "global.process.env.NODE_ENV": '"production"',
      "globalThis.process.env.NODE_ENV": '"production"',
    },
    external: ["cloudflare:*"],
    minify: opts.minify,
    // No __name(...) bookkeeping around every function: nothing in the Worker reads a function's name.
    keepNames: false,
    sourcemap: true,
    metafile: true,
    plugins: [aliasPlugin],
    logLevel: "warning",
  });
  writeFileSync(path.join(opts.outdir, "meta.json"), JSON.stringify(result.metafile));
  return path.join(opts.outdir, "index.js");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { entry: { type: "string" }, outdir: { type: "string" }, minify: { type: "string", default: "true" } },
  });
  await writeOpenApiBuild();
  const entry = await bundleWorker({
    entry: path.resolve(values.entry ?? local("src/index.ts")),
    outdir: path.resolve(values.outdir ?? local("dist/worker")),
    minify: values.minify !== "false",
  });
  console.log(`built ${path.relative(process.cwd(), entry)}`);
}
