/**
 * `drizzle-orm/pg-core` (and its `index.js`, as drizzle's Neon sessions import it) as the Worker bundle
 * sees it (wrangler.toml `[alias]`): the names that our code and those sessions import, from drizzle's
 * own modules. The package's index re-exports every module of pg-core (every
 * column type, views, policies, sequences...); once the routes are imported lazily, esbuild must keep
 * and initialise all of a lazily reached index's re-exports, about 15 KB minified that nothing uses.
 * A name missing here fails the build; add it from the module that defines it.
 */
export { alias } from "drizzle-orm/pg-core/alias";
export { check } from "drizzle-orm/pg-core/checks";
export { bigint } from "drizzle-orm/pg-core/columns/bigint";
export { boolean } from "drizzle-orm/pg-core/columns/boolean";
export { date } from "drizzle-orm/pg-core/columns/date";
export { integer } from "drizzle-orm/pg-core/columns/integer";
export { jsonb } from "drizzle-orm/pg-core/columns/jsonb";
export { numeric } from "drizzle-orm/pg-core/columns/numeric";
export { smallint } from "drizzle-orm/pg-core/columns/smallint";
export { text } from "drizzle-orm/pg-core/columns/text";
export { timestamp } from "drizzle-orm/pg-core/columns/timestamp";
export { uuid } from "drizzle-orm/pg-core/columns/uuid";
export { index, uniqueIndex } from "drizzle-orm/pg-core/indexes";
export { primaryKey } from "drizzle-orm/pg-core/primary-keys";
// drizzle's neon-http and neon-serverless sessions import the index for this one class.
export { PgTransaction } from "drizzle-orm/pg-core/session";
export { pgTable } from "drizzle-orm/pg-core/table";
