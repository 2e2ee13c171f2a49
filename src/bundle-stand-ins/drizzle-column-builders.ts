/**
 * `drizzle-orm/pg-core/columns/all.js` as the Worker bundle sees it (wrangler.toml `[alias]`): the
 * column builders `pgTable(name, (t) => ({ ... }))` hands to its callback, which import every
 * PostgreSQL column type (PostGIS, pgvector, geometric, network...). Our tables pass their columns as
 * an object (`pgTable(name, { ... })`), so drizzle never calls this; the stand-in throws if it does.
 */
export function getPgColumnBuilders(): never {
  throw new Error("pgTable's column-builder callback is not in the Worker bundle (wrangler.toml [alias]): pass the columns as an object");
}
