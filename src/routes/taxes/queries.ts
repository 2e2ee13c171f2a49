import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import { taxes } from "../../db/schema/orders";

/** The company's live (not deleted) taxes. */
export const liveTaxes = (companyId: number) => and(eq(taxes.companyId, companyId), isNull(taxes.deletedAt));

/**
 * What a tax write holds before it reads (the change's `lock`): the tax's row. An order write that
 * names the tax holds it `for share` until it commits, so the write then sees that order's invoice
 * (to change its totals, or to count it against a delete).
 */
export const taxLock = (companyId: number, id: number): SQL =>
  sql`select ${taxes.id} from ${taxes} where ${taxes.id} = ${id} and ${taxes.companyId} = ${companyId} for update`;
