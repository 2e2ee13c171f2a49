import { type AnyColumn, is, SQL, type SQLWrapper, sql, type WithSubquery } from "drizzle-orm";
import { accountingChangeCte } from "../accounting/outbox";
import type { AccountingChange } from "../accounting/payload";
import type { Db } from "../platform/db";
import { type OriginSql, type WrittenEvent, webhookEventCte } from "../webhooks/events";
import type { EventCatalog, ResourceEvents } from "../webhooks/events-catalog";

/*
 * What a change writes besides its own rows, as CTEs of the change's one statement: its accounting
 * outbox rows and its webhook events (with their deliveries). Each is written once per row of its
 * `from`, so it lands only with the change, and a change of many rows writes one per row. List counters
 * (list_counts) need nothing here: statement triggers keep them in the same statement.
 */

/** The rows an effect is written for: a CTE of the statement (every row it returns), or `from <cte> [where …]`. */
export type ForRows = WithSubquery | SQL;

/** A value of the row, or of the statement (a column of a CTE, or SQL reading one). */
type Value<T> = T | AnyColumn | SQL;

export interface EventEffect {
  type: string;
  resourceType: string;
  /** The changed resource's id. */
  resourceId: Value<string | number>;
  from: ForRows;
  /** What the change replaced (jsonb over the rows of `from`), for an event type that declares it: `data.previous_attributes`. */
  previous?: SQL;
}

/** An accounting outbox row on an order's default invoice (payload.ts says what it holds). */
export type AccountingEffect = AccountingChange & { projectId: Value<number>; invoiceId: Value<number>; from: ForRows };

/** What a statement of a change writes besides its own rows. */
export interface Effects {
  events?: EventEffect[];
  accounting?: AccountingEffect[];
}

/** A change that replaced none of the fields previous_attributes compare (an order's contents): `{}`. */
const NOTHING_REPLACED = sql`'{}'::jsonb`;

/**
 * An event of a type the resource declares (`routes/<resource>/events.ts`), about the resource `id`,
 * written once per row of `from`. A type declared with previous_attributes always carries them: `{}`
 * when the writer says nothing replaced (`previous` left out).
 */
export function eventOf<E extends ResourceEvents>(
  events: E,
  type: keyof E["types"] & string,
  of: { id: Value<string | number>; from: ForRows; previous?: SQL },
) {
  const previous = of.previous ?? (events.previousAttributes?.[type] ? NOTHING_REPLACED : undefined);
  return { type, resourceType: events.resource, resourceId: of.id, from: of.from, previous } satisfies EventEffect;
}

/**
 * An event of another resource's type, named through the catalog of every resource's events (the one a
 * resource's loader gets), for a write whose statement also changes that resource's rows (a tax's new
 * rate changes its orders). A type the catalog does not hold throws when the route is built.
 */
export function catalogEvent(catalog: EventCatalog, type: string) {
  const declared = catalog[type];
  if (!declared) throw new Error(`no resource declares the webhook event type ${type}`);
  return (of: { id: Value<string | number>; from: ForRows }): EventEffect => ({
    type,
    resourceType: declared.resource,
    resourceId: of.id,
    from: of.from,
    previous: declared.previous ? NOTHING_REPLACED : undefined,
  });
}

/** What a change's statements wrote besides their rows: handed to delivery once the change committed. */
export interface Written {
  outbox: number[];
  events: WrittenEvent[];
}

const fromClause = (rows: ForRows) => (is(rows, SQL) ? rows : sql`from ${rows}`);
const asSql = <T extends string | number>(value: Value<T>): T | SQL =>
  typeof value === "object" && !is(value, SQL) ? sql`${value}` : (value as T | SQL);

/**
 * The `previous_attributes` of an event (jsonb): for each field `[before, after]` (SQL over the statement's
 * CTEs: the row as the statement found it, such as its row locks, and as it left it), the field's value
 * before, when it differs from after; `{}` when none changed. The one way an event says what its change
 * replaced. Each value as the API writes it: pass a numeric as `::text`, as drizzle answers it.
 */
export function changedFields(fields: Readonly<Record<string, readonly [before: SQLWrapper, after: SQLWrapper]>>): SQL {
  const rows = Object.entries(fields).map(([name, [before, after]]) => sql`(${name}::text, to_jsonb(${before}), to_jsonb(${after}))`);
  return sql`(select coalesce(jsonb_object_agg(f.name, f.before), '{}'::jsonb)
    from (values ${sql.join(rows, sql`, `)}) as f(name, before, after) where f.before is distinct from f.after)`;
}

/**
 * The effects' CTEs, to follow the statement's own (so each `from` can read them), and `written`, the
 * column that answers what they wrote (on one of the rows the statement returns, null on the others).
 * `origin` is who caused the change and in which request, written on each event.
 */
export function effectsOf(
  db: Db,
  companyId: number | SQL,
  origin: OriginSql,
  effects: Effects,
): { ctes: WithSubquery[]; written: SQL<Written | null> } {
  const suffix = (i: number) => (i ? `_${i + 1}` : "");
  const outbox = (effects.accounting ?? []).map(({ from, projectId, invoiceId, ...change }, i) =>
    accountingChangeCte(
      db,
      { companyId, projectId: asSql(projectId), invoiceId: asSql(invoiceId), ...change },
      fromClause(from),
      suffix(i),
    ),
  );
  const events = (effects.events ?? []).map(({ from, resourceId, previous, ...event }, i) =>
    webhookEventCte(
      db,
      { companyId, ...event, resourceId: asSql(resourceId), previousAttributes: previous, origin },
      fromClause(from),
      suffix(i),
    ),
  );
  const outboxIds = outbox.map((o) => sql`(select coalesce(json_agg(${o.id} order by ${o.id}), '[]'::json) from ${o})`);
  // On one row only (the same for every row): a statement of many rows (a batch) answers it once.
  const written =
    sql<Written | null>`case when row_number() over () = 1 then json_build_object('outbox', json_build_array(${sql.join(outboxIds, sql`, `)}),
    'events', json_build_array(${sql.join(
      events.map((e) => e.written),
      sql`, `,
    )})) end`.mapWith((v: { outbox: number[][]; events: WrittenEvent[][] }) => ({ outbox: v.outbox.flat(), events: v.events.flat() }));
  return { ctes: [...outbox, ...events.flatMap((e) => e.ctes)], written };
}
