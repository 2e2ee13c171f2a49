import { type AnyPgColumn, integer } from "drizzle-orm/pg-core";

/** Column builders every table uses (not re-exported by the schema index: they are not tables). */

/** The identity primary key `id`. */
export const identityId = () => integer("id").primaryKey().generatedAlwaysAsIdentity();

/** A required reference to another table's integer id. */
export const ref = (name: string, target: () => AnyPgColumn) => integer(name).notNull().references(target);
