/**
 * `drizzle-orm/pg-core/columns/index.js` as the Worker bundle sees it (wrangler.toml `[alias]`): what
 * drizzle's `pg-core/dialect.js` and `pg-core/indexes.js` import from it, from the modules that define
 * those names. The index re-exports every PostgreSQL column type; see drizzle-pg-core.ts for why that
 * matters once the routes are imported lazily. A name missing here fails the build.
 */
export { IndexedColumn, PgColumn } from "drizzle-orm/pg-core/columns/common";
export { PgDate, PgDateString } from "drizzle-orm/pg-core/columns/date";
export { PgJson } from "drizzle-orm/pg-core/columns/json";
export { PgJsonb } from "drizzle-orm/pg-core/columns/jsonb";
export { PgNumeric } from "drizzle-orm/pg-core/columns/numeric";
export { PgTime } from "drizzle-orm/pg-core/columns/time";
export { PgTimestamp, PgTimestampString } from "drizzle-orm/pg-core/columns/timestamp";
export { PgUUID } from "drizzle-orm/pg-core/columns/uuid";
