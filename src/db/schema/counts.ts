import { bigint, integer, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";
import { companies } from "./companies";

/**
 * Live-row counts per company and list ('clients', 'orders'), kept by statement triggers in the same
 * transaction as the rows they count (drizzle/0004_list_counts.sql), so an unfiltered list's total is a
 * sum of a few rows, exact in every snapshot. Each writing backend adds to its own shard
 * (backend pid mod 16), so concurrent writers of one company rarely wait on the same row.
 */
export const listCounts = pgTable(
  "list_counts",
  {
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id),
    list: text("list").notNull(),
    shard: smallint("shard").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.list, t.shard] })],
);
