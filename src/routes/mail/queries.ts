import { type AnyColumn, and, eq, getTableColumns, not, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { emailThreads, mailThreadContexts as t } from "../../db/schema/mail";
import { etagSql } from "../../http/etag";
import type { Db } from "../../platform/db";

/*
 * The cache's JSON is written by another system and may hold any shape, so every read below is
 * guarded: jsonb_typeof before iterating, and ids are cast only after a regex or range check, inside
 * CASE (which PostgreSQL evaluates lazily). A value the rule cannot read yields NULL and ties nothing.
 */

/** Text → int id when it is 1-10 digits (surrounding blanks allowed) within int4 range, else NULL. */
const textId = (text: SQL) =>
  sql`case when btrim(${text}) ~ '^[0-9]{1,10}$' then case when btrim(${text})::bigint <= 2147483647 then btrim(${text})::int end end`;

/** jsonb → int id: a whole JSON number in int4 range, or a string textId accepts; anything else NULL. */
const jsonId = (value: SQL) => sql`case jsonb_typeof(${value})
  when 'number' then case when ${value}::numeric between 1 and 2147483647 and ${value}::numeric = trunc(${value}::numeric) then ${value}::numeric::int end
  when 'string' then ${textId(sql`${value} #>> '{}'`)}
end`;

/** The elements of a JSON array column; nothing when the column holds anything but an array. */
const elementsOf = (column: SQLWrapper) => sql`jsonb_array_elements(case when jsonb_typeof(${column}) = 'array' then ${column} end)`;

/** JSON keys that carry an order (project) id in each `orders_data` element. */
export const ORDER_ID_KEYS = ["id", "order_id", "project_id"] as const;
/** JSON keys that carry a company id in `client_data` and in each element of the three arrays. */
export const COMPANY_ID_KEYS = ["company_id", "companyId"] as const;

const keyValues = (element: SQL, keys: readonly string[]) =>
  sql.join(
    keys.map((k) => sql`(${element} -> ${sql.raw(`'${k}'`)})`),
    sql`, `,
  );

/**
 * True when the cached row is tied to the company, any of:
 * 1. `client_id` is the id of a client of the company;
 * 2. an object element of the `orders_data` array has `id`, `order_id` or `project_id` equal to an
 *    order (project) id of the company;
 * 3. `client_data` (an object), or an object element of the `clients_data`, `orders_data` or
 *    `participants_data` arrays, has `company_id` or `companyId` equal to the company's id.
 * Ids may be JSON numbers or numeric strings; soft-deleted clients and orders still count (the
 * thread is still that company's mail). Keys nested deeper, bare scalars and other members do not count.
 */
export const tiedToCompany = (companyId: number) => sql`(
  exists (select 1 from clients c where c.id = ${textId(sql`${t.clientId}`)} and c.company_id = ${companyId})
  or exists (
    select 1
    from ${elementsOf(t.ordersData)} as o(e)
    cross join lateral (values ${keyValues(sql`o.e`, ORDER_ID_KEYS)}) as k(v)
    join projects p on p.id = ${jsonId(sql`k.v`)}
    where jsonb_typeof(o.e) = 'object' and p.company_id = ${companyId}
  )
  or exists (
    select 1
    from (
      select ${t.clientData}
      union all select ${elementsOf(t.clientsData)}
      union all select ${elementsOf(t.ordersData)}
      union all select ${elementsOf(t.participantsData)}
    ) as m(e)
    cross join lateral (values ${keyValues(sql`m.e`, COMPANY_ID_KEYS)}) as k(v)
    where jsonb_typeof(m.e) = 'object' and ${jsonId(sql`k.v`)} = ${companyId}
  )
)`;

/** The cache's JSON members, read as PostgreSQL's jsonb text so numbers stay exact (see `src/http/exact-json.ts`). */
export const CONTEXT_JSON_MEMBERS = ["clientData", "clientsData", "ordersData", "participantEmails", "participantsData"] as const;
type ContextJsonMember = (typeof CONTEXT_JSON_MEMBERS)[number];
const threadContextFields = {
  ...getTableColumns(t),
  ...(Object.fromEntries(CONTEXT_JSON_MEMBERS.map((k) => [k, sql<string | null>`${t[k]}::text`])) as Record<
    ContextJsonMember,
    SQL<string | null>
  >),
};
export type ThreadContextRow = Omit<typeof t.$inferSelect, ContextJsonMember> & Record<ContextJsonMember, string | null>;

/** The cached context when it exists and is tied to the company; one query either way. */
export async function findTiedThreadContext(db: Db, companyId: number, legacyThreadId: string): Promise<ThreadContextRow | undefined> {
  const [row] = await db
    .select(threadContextFields)
    .from(t)
    .where(and(eq(t.legacyThreadId, legacyThreadId), tiedToCompany(companyId)))
    .limit(1);
  return row;
}

/** The thread's JSON members, kept exactly as sent (see `src/http/exact-json.ts`). */
export const EXACT_JSON_MEMBERS = ["participants", "labels", "messages"] as const;
export type ExactJsonMember = (typeof EXACT_JSON_MEMBERS)[number];

/**
 * A thread row as read for responses: the JSON members as PostgreSQL's jsonb text, because the
 * driver's JSON.parse would round numbers beyond a double (responses embed the text as is).
 */
/** A thread's exact JSON members of `source` (the table, or a CTE returning its rows) as text: their numbers stay exact. */
export const exactJsonText = (source: Record<ExactJsonMember, unknown>) =>
  Object.fromEntries(EXACT_JSON_MEMBERS.map((k) => [k, sql<string>`${source[k]}::text`])) as Record<ExactJsonMember, SQL<string>>;
export const emailThreadFields = { ...getTableColumns(emailThreads), ...exactJsonText(emailThreads) };
export type EmailThreadRow = Omit<typeof emailThreads.$inferSelect, ExactJsonMember> & Record<ExactJsonMember, string>;
/** A thread's strong ETag: every PUT bumps `updated_at`. */
export const emailThreadEtagOf = (id: unknown, updatedAt: unknown) => etagSql(id, [updatedAt]);
export const emailThreadEtag = emailThreadEtagOf(emailThreads.id, emailThreads.updatedAt);

/** The live (not soft-deleted) thread for company, mailbox (already lowercase) and legacy id. */
export async function findLiveEmailThread(
  db: Db,
  companyId: number,
  accountEmail: string,
  legacyThreadId: string,
): Promise<(EmailThreadRow & { etag: string }) | undefined> {
  const [row] = await db
    .select({ ...emailThreadFields, etag: emailThreadEtag })
    .from(emailThreads)
    .where(
      and(
        eq(emailThreads.companyId, companyId),
        eq(emailThreads.accountEmail, accountEmail),
        eq(emailThreads.legacyThreadId, legacyThreadId),
        not(emailThreads.deleted),
      ),
    )
    .limit(1);
  return row;
}

/** `excluded.<column>` for ON CONFLICT DO UPDATE: the proposed row's value, without sending it twice. */
export const excluded = (column: AnyColumn) => sql.raw(`excluded."${column.name}"`);
