import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import { orderStatuses } from "../../db/schema/orders";

/** The company's live (not deleted) statuses. */
export const liveStatuses = (companyId: number) => and(eq(orderStatuses.companyId, companyId), isNull(orderStatuses.deletedAt));

/** Namespace (first key) of the transaction-scoped advisory lock that serializes a company's status writes. */
export const LOCK_STATUSES = 0x53540001;

/**
 * What a status write holds before it reads (the change's `lock`): the company's status lock, so
 * positions stay dense and names unique however writes interleave, each write seeing the ones before
 * it. With `rowId`, that status's row too (for update), taken after the company lock (the subquery is
 * correlated with the lock's output, so it runs once the lock is held and every writer takes the two
 * in one order): an order write that names the status holds it `for share` until it commits, so a
 * delete then counts that order. The lock's output is a column of a subquery the planner keeps
 * (`offset 0`, a volatile column): a boolean around the call (`… is null or true`) is folded to a
 * constant and the function is never called.
 */
export const statusesLock = (companyId: number, rowId?: number): SQL =>
  rowId === undefined
    ? sql`select pg_advisory_xact_lock(${LOCK_STATUSES}, ${companyId})`
    : sql`select (select ${orderStatuses.id} from ${orderStatuses}
          where ${orderStatuses.id} = ${rowId} and ${orderStatuses.companyId} = ${companyId} and l.held is not null for update)
        from (select pg_advisory_xact_lock(${LOCK_STATUSES}, ${companyId})::text as held offset 0) l`;

/** The live status of the company that has this name, ignoring case (`except`: the status being renamed); null if none. */
export const statusNamed = (companyId: number, name: string, except?: number) =>
  sql<number | null>`(select min(${orderStatuses.id}) from ${orderStatuses} where ${and(
    liveStatuses(companyId),
    sql`lower(${orderStatuses.name}) = lower(${name})`,
    except === undefined ? undefined : sql`${orderStatuses.id} <> ${except}`,
  )})`;

/** The number of live statuses of the company, as a scalar subquery. */
export const statusCount = (companyId: number) =>
  sql<number>`(select count(*)::int from ${orderStatuses} where ${liveStatuses(companyId)})`;
