/**
 * Stand-ins for two zod modules that only `z.*` exports reach and nothing in the Worker calls
 * (wrangler.toml `[alias]`; see zod-locales.ts for why esbuild keeps every export of `z`):
 * zod's ahead-of-time parser compiler (`z.compile`, `z.withParser`) and `z.fromJSONSchema`.
 * Calling one throws; the names stay, because zod re-exports them by name.
 */
const unbundled = (name: string) => (): never => {
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
