/**
 * Stands in for zod's ahead-of-time parser compiler (`z.compile`, `z.withParser`), which only `z.*`
 * reaches and nothing in the Worker calls (tools/cli/worker-build.ts ALIASES): without it esbuild
 * refuses the build, reporting the compiler's names as ambiguous imports. Calling one throws; the names
 * stay, because zod re-exports them by name.
 */
export const unbundled = (name: string) => (): never => {
  throw new Error(`${name} is not in the Worker bundle (tools/cli/worker-build.ts ALIASES)`);
};

// zod/v4/core/compile.js
export const INVALID = Symbol.for("zod.compile.invalid");
export class ZodCompileAsyncError extends Error {}
export class ZodCompileUnsupportedError extends Error {}
export const compile = unbundled("z.compile");
export const withParser = unbundled("z.withParser");
export const compileFn = unbundled("z.core.compileFn");
