/**
 * zod's `z` as the Worker bundle sees it (wrangler.toml `[alias]` for the import path "zod"):
 * `@hono/zod-openapi` imports `z` from "zod", re-exports it and hands it to `extendZodWithOpenApi(z)`,
 * so esbuild would keep every export of zod's namespace (every string format, `z.core`, `z.regexes`,
 * codecs, files...). This `z` holds only the names in zod-names.ts, from zod's own modules.
 */
import * as z from "./zod-names";

export { z, z as default };
