import { is, SQL, sql } from "drizzle-orm";
import { listCounts } from "../db/schema/counts";

/**
 * An exact total from the trigger-kept counters (a few rows), as a scalar subquery: `list` is a list
 * ("clients", "orders") or one counted filter value of it ("orders/status_id=4", see drizzle/0005), or
 * several values of one filter, whose counts add up (`status=3,5`).
 */
export const countedTotal = (companyId: number, list: string | SQL | readonly string[]) =>
  sql<number>`(select coalesce(sum(${listCounts.n}), 0) from ${listCounts} where ${listCounts.companyId} = ${companyId} and ${
    typeof list === "string" || is(list, SQL)
      ? sql`${listCounts.list} = ${list}`
      : sql`${listCounts.list} = any(${`{${list.join(",")}}`}::text[])`
  })`.mapWith(Number);
