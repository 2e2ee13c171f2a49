/**
 * zod's `locales` module as the Worker bundle sees it (wrangler.toml `[alias]`): English only.
 * `z` is zod's namespace object, re-exported by `@hono/zod-openapi` (which also hands it to
 * `extendZodWithOpenApi`), so esbuild keeps every export of it, `z.locales` and `z.core.locales`
 * (40-odd translations) included. The API
 * answers in English, which zod configures from its `en` module directly; nothing calls `z.config`
 * with another locale.
 */
export { default as en } from "zod/v4/locales/en.js";
