/**
 * Stand-ins for two zod modules that only `z.*` exports reach and nothing in the Worker calls
 * (wrangler.toml `[alias]`; see zod-locales.ts for why esbuild keeps every export of `z`):
 * zod's ahead-of-time parser compiler (`z.compile`, `z.withParser`) and `z.fromJSONSchema`.
 * Calling one throws; the names stay, because zod re-exports them by name.
 */
export const unbundled = (name: string) => (): never => {
  throw new Error(`${name} is not in the Worker bundle (wrangler.toml [alias])`);
};

// zod/v4/core/compile.js
export const INVALID = Symbol.for("zod.compile.invalid");
export class ZodCompileAsyncError extends Error {}
export class ZodCompileUnsupportedError extends Error {}
export const compile = unbundled("z.compile");
export const withParser = unbundled("z.withParser");
export const compileFn = unbundled("z.core.compileFn");

// zod/v4/classic/from-json-schema.js
export const fromJSONSchema = unbundled("z.fromJSONSchema");

// zod/v4/core/to-json-schema.js and json-schema-generator.js: zod's JSON Schema output (`z.toJSONSchema`,
// `schema.toJSONSchema()`, Standard Schema's `jsonSchema`). The OpenAPI document is built by
// @asteasolutions/zod-to-openapi, which reads the schemas itself. Each schema creates its Standard Schema
// methods when `~standard` is read, so these return a function that throws when called.
const unbundledMethod = (name: string) => () => unbundled(name);
export const createToJSONSchemaMethod = unbundledMethod("toJSONSchema()");
export const createStandardJSONSchemaMethod = unbundledMethod("~standard.jsonSchema");
export const initializeContext = unbundled("z.core.initializeContext");
export const processSchema = unbundled("z.core.processSchema");
export const extractDefs = unbundled("z.core.extractDefs");
export const finalize = unbundled("z.core.finalize");
export const handleUnrepresentable = unbundled("z.core.handleUnrepresentable");
export class JSONSchemaGenerator {
  constructor() {
    unbundled("z.core.JSONSchemaGenerator")();
  }
}
