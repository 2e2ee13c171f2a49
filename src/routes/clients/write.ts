import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { type Change, COMPANY_ID, type Statement, type StatementQuery } from "../../changes/change";
import { changedFields, eventOf } from "../../changes/effects";
import { clients } from "../../db/schema/clients";
import { CLIENT_FIELDS, serializeClient } from "../../domain/client";
import {
  externalIdTaken,
  METADATA_MAX_KEYS,
  type MetadataChange,
  metadataChange,
  sameRow,
  tooManyMetadataKeys,
} from "../../domain/external";
import { ApiError, invalid, notFound } from "../../http/errors";
import { etagSql, preconditionFailed } from "../../http/etag";
import type { Db } from "../../platform/db";
import { isUniqueViolation } from "../../platform/db";
import { nextId, rowOf } from "../../platform/sql-kit";
import { clientEvents } from "./events";
import { type ClientCreate, type ClientPatch, type ClientUpsert, clientColumns } from "./schema";

/*
 * Every client write (POST, PATCH, PUT by external id, and the items of POST /clients/batch) is one
 * statement over any number of clients: the clients a write addresses are found, each is checked (the
 * row exists, its external id is not another live client's, its metadata stays within 50 keys, its
 * If-Match), then the ones that pass are inserted or updated, set-based, with one webhook event per row
 * written. The statement answers, per write, what it found and what it wrote, so one round trip says
 * why a write was refused. A write that the statement let through but a concurrent one overtook (an
 * upsert's insert that lost to the same external id, an update of a client deleted meanwhile) is run
 * again by the next statement, which sees what the other committed.
 */

/** One client write: what it addresses and what it changes. */
export type ClientWrite =
  | { method: "create"; body: ClientCreate }
  | {
      method: "update";
      address: { id: number } | { externalId: string };
      body: Omit<ClientPatch, "deleted">;
      deleted?: boolean;
      /** The If-Match condition (PATCH /clients/{id}). */
      ifMatch?: "*" | string[];
    }
  | { method: "upsert"; externalId: string; body: ClientUpsert };

/** A write's outcome: the status and client the single request answers (with the ETag), or its error. */
export type ClientOutcome = { status: 200 | 201; client: ReturnType<typeof serializeClient>; etag: string } | { error: ApiError };

/** The columns a caller writes, with their SQL names. */
const WRITABLE = [...CLIENT_FIELDS, "externalId"] as const;
const column = (key: (typeof WRITABLE)[number]): PgColumn => getTableColumns(clients)[key];
const clientEtagOf = (alias: string) => etagSql(sql`${sql.identifier(alias)}.id`, [sql`${sql.identifier(alias)}.updated_at`]);

/** The fields a `client.updated` event's previous_attributes compare (wire names: the columns' names). */
const PREVIOUS = WRITABLE.map((key) => column(key).name).concat("metadata");

/** Values a create stores for the fields it does not send (the columns' defaults). */
const createDefaults = { quickbooks_enabled: false, tax_exempt: false };

/** A write as the statement's input row (snake_case SQL column names). */
function inputOf(write: ClientWrite, idx: number) {
  const row = (body: object) =>
    Object.fromEntries(Object.entries(clientColumns(body)).map(([key, value]) => [column(key as (typeof WRITABLE)[number]).name, value]));
  const given = (body: object) => Object.keys(clientColumns(body)).map((key) => column(key as (typeof WRITABLE)[number]).name);
  const meta = (m: MetadataChange | undefined) => m ?? null;
  switch (write.method) {
    case "create":
      return {
        idx,
        method: "create",
        row: { ...createDefaults, ...row(write.body) },
        given: [],
        meta: meta(metadataChange(write.body.metadata, true)),
      };
    case "upsert":
      return {
        idx,
        method: "upsert",
        key: write.externalId,
        row: { ...createDefaults, ...row(write.body), external_id: write.externalId },
        given: given(write.body),
        create_meta: metadataChange(write.body.metadata, true),
        meta: meta(metadataChange(write.body.metadata, false)),
      };
    case "update":
      return {
        idx,
        method: "update",
        ...("id" in write.address ? { id: write.address.id } : { key: write.address.externalId }),
        row: row(write.body),
        given: given(write.body),
        meta: meta(metadataChange(write.body.metadata, false)),
        deleted: write.deleted ?? false,
        // "*": any current representation, which the row's existence already requires.
        etags: write.ifMatch === undefined || write.ifMatch === "*" ? null : write.ifMatch,
      };
  }
}

/** `stored || set - unset` (from {} when `replace`), for the metadata change `m` (jsonb { replace, set, unset }). */
const metadataSql = (stored: SQL, m: SQL) =>
  sql`((case when (${m}->>'replace')::boolean then '{}'::jsonb else coalesce(${stored}, '{}'::jsonb) end || coalesce(${m}->'set', '{}'::jsonb))
      - array(select jsonb_array_elements_text(coalesce(${m}->'unset', '[]'::jsonb))))`;

/**
 * The statement of every client write, the same text for any writes: the writes travel as one jsonb
 * parameter (`input`), the company as COMPANY_ID. Built once per isolate (Change.writePrepared).
 */
const clientWrite = (db: Db) => {
  const cols = WRITABLE.map(column);
  const names = (prefix: string) =>
    sql.join(
      cols.map((c) => sql.raw(`${prefix}${c.name}`)),
      sql`, `,
    );
  const input = db.$with("input", {}).as(sql`
    select (e.item->>'idx')::int as idx, e.item->>'method' as method, (e.item->>'id')::int as target_id, e.item->>'key' as key,
           e.item->'given' as given, jsonb_populate_record(null::${clients}, e.item->'row') as r, e.item->'meta' as meta,
           e.item->'create_meta' as create_meta, coalesce((e.item->>'deleted')::boolean, false) as deleted,
           case when e.item->'etags' = 'null'::jsonb or not (e.item ? 'etags') then null
                else array(select jsonb_array_elements_text(e.item->'etags')) end as etags
    from jsonb_array_elements(${sql.placeholder("input")}::jsonb) as e(item)`);
  // The live client each update and upsert addresses, by id or by external id: two joins, each on its
  // index (one join on either condition cannot use an index and reads every client of the company).
  const found = db.$with("found", {}).as(sql`
    select i.idx, c.id, c.external_id, c.metadata, ${clientEtagOf("c")} as etag
    from input i join ${clients} c on c.id = i.target_id and c.company_id = ${COMPANY_ID} and c.deleted_at is null
    union all
    select i.idx, c.id, c.external_id, c.metadata, ${clientEtagOf("c")} as etag
    from input i join ${clients} c on c.company_id = ${COMPANY_ID} and c.deleted_at is null and c.external_id is not null
      and c.external_id = i.key
    where i.target_id is null and i.method <> 'create'`);
  const plan = db.$with("plan", {}).as(sql`
    select i.*, f.id as found_id, f.etag as found_etag,
      case when f.id is not null then 'update' when i.method = 'update' then 'missing' else 'insert' end as action,
      case when f.id is null then (i.r).external_id when i.given ? 'external_id' then (i.r).external_id else f.external_id end as new_external_id,
      case when f.id is null then ${metadataSql(sql`null`, sql`coalesce(i.create_meta, i.meta)`)}
           when i.meta is null or i.meta = 'null'::jsonb then f.metadata
           else ${metadataSql(sql`f.metadata`, sql`i.meta`)} end as new_metadata
    from input i left join found f on f.idx = i.idx`);
  const checked = db.$with("checked", { idx: sql<number>`idx`.as("idx") }).as(sql`
    select p.*,
      (select c.id from ${clients} c where c.company_id = ${COMPANY_ID} and c.deleted_at is null and p.new_external_id is not null
         and c.external_id = p.new_external_id and c.id is distinct from p.found_id limit 1) as conflict_id,
      (select min(o.idx) from plan o where o.found_id = p.found_id and o.idx < p.idx) as same_row_as,
      (select count(*) from jsonb_object_keys(p.new_metadata))::int as metadata_keys,
      (p.etags is null or p.found_etag = any(p.etags)) as etag_ok
    from plan p`);
  const go = db.$with("go", { idx: sql<number>`idx`.as("idx") }).as(sql`
    select c.*, case when c.action = 'insert' then ${nextId(clients)} end as new_id from checked c
    where c.action <> 'missing' and c.conflict_id is null and c.same_row_as is null and c.metadata_keys <= ${METADATA_MAX_KEYS} and c.etag_ok`);
  const inserted = db.$with("inserted", getTableColumns(clients)).as(sql`
    insert into ${clients} (id, company_id, ${names("")}, metadata) overriding system value
    select g.new_id, ${COMPANY_ID}, ${sql.join(
      cols.map((c) => (c.name === "external_id" ? sql`g.new_external_id` : sql.raw(`(g.r).${c.name}`))),
      sql`, `,
    )}, g.new_metadata
    -- In external id order: concurrent statements inserting the same ids wait for each other, never deadlock.
    from go g where g.action = 'insert' order by g.new_external_id, g.idx
    on conflict (company_id, external_id) where deleted_at is null and external_id is not null do nothing
    returning *`);
  const set = cols.map((c) =>
    c.name === "external_id"
      ? sql`external_id = g.new_external_id`
      : sql.raw(`${c.name} = case when g.given ? '${c.name}' then (g.r).${c.name} else c.${c.name} end`),
  );
  // The rows to update locked in id order first, so concurrent statements updating the same clients wait
  // for each other instead of deadlocking (an UPDATE … FROM locks in its join's order).
  // Each locked row as the update finds it (a lock answers the row's latest version): what `client.updated`'s
  // previous_attributes compare with.
  const lock = db.$with("lock", { id: sql<number>`id`.as("id") }).as(sql`
    select c.* from ${clients} c join go g on g.action = 'update' and c.id = g.found_id
    where c.company_id = ${COMPANY_ID} order by c.id for update of c`);
  const updated = db.$with("updated", getTableColumns(clients)).as(sql`
    update ${clients} c set ${sql.join(set, sql`, `)}, metadata = g.new_metadata,
      deleted_at = case when g.deleted then now() else c.deleted_at end, updated_at = now()
    from go g
    where g.action = 'update' and c.id = g.found_id and c.id in (select id from lock) and c.deleted_at is null
      and (g.etags is null or ${clientEtagOf("c")} = any(g.etags))
    returning c.*`);
  const written = db.$with("written", getTableColumns(clients)).as(sql`select * from inserted union all select * from updated`);
  return {
    statement: {
      with: [input, found, plan, checked, go, inserted, lock, updated, written],
      events: [
        eventOf(clientEvents, "client.created", { id: inserted.id, from: inserted }),
        eventOf(clientEvents, "client.updated", {
          id: sql`updated.id`,
          from: sql`from updated join lock on lock.id = updated.id where updated.deleted_at is null`,
          previous: changedFields(
            Object.fromEntries(PREVIOUS.map((name) => [name, [sql.raw(`lock.${name}`), sql.raw(`updated.${name}`)]])),
          ),
        }),
        eventOf(clientEvents, "client.deleted", { id: sql`updated.id`, from: sql`from updated where updated.deleted_at is not null` }),
      ],
    } satisfies Statement,
    query: (q: StatementQuery) =>
      q
        .select({
          idx: sql<number>`checked.idx`,
          action: sql<"insert" | "update" | "missing">`checked.action`,
          foundEtag: sql<string | null>`checked.found_etag`,
          conflictId: sql<number | null>`checked.conflict_id`,
          sameRowAs: sql<number | null>`checked.same_row_as`,
          metadataKeys: sql<number>`checked.metadata_keys`,
          etagOk: sql<boolean>`checked.etag_ok`,
          client: rowOf(clients, "written"),
          etag: sql<string | null>`case when written.id is null then null else ${clientEtagOf("written")} end`,
        })
        .from(checked)
        .leftJoin(go, sql`go.idx = checked.idx`)
        .leftJoin(written, sql`written.id = coalesce(go.new_id, go.found_id)`),
  };
};

/**
 * One statement for `writes` (any mix of methods): answers, per write, what the single request answers,
 * or undefined for a write a concurrent writer overtook (the next statement runs it again).
 */
async function writeOnce(change: Change, writes: { idx: number; write: ClientWrite }[]) {
  const input = JSON.stringify(writes.map(({ idx, write }) => inputOf(write, idx)));
  const rows = await change.writePrepared("client_write", clientWrite, { input });
  const byIdx = new Map(rows.map((r) => [r.idx, r]));
  return writes.map(({ idx, write }): ClientOutcome | undefined => {
    const r = byIdx.get(idx)!;
    if (r.action === "missing") return { error: notFound("Client") };
    if (!r.etagOk) return { error: preconditionFailed(r.foundEtag!) };
    if (r.sameRowAs !== null) return { error: sameRow(r.sameRowAs, "client") };
    if (r.conflictId !== null) return { error: externalIdTaken("client", r.conflictId) };
    if (r.metadataKeys > METADATA_MAX_KEYS) return { error: invalid("Invalid request body", [tooManyMetadataKeys(r.metadataKeys)]) };
    if (r.client && r.etag)
      return { status: r.action === "insert" && write.method === "upsert" ? 201 : 200, client: serializeClient(r.client), etag: r.etag };
    // Passed its checks but not written: a concurrent write came first. A create's external id went to
    // another client (a conflict, as it would be now); anything else runs again.
    if (write.method === "create") return { error: externalIdTaken("client", null) };
    return undefined;
  });
}

/** How many statements a write may take when concurrent writes keep overtaking it (each sees more of what they committed). */
const ATTEMPTS = 3;

/**
 * Runs `writes` (in order of their index) in as few statements as possible; answers each one's outcome.
 * Events are written for the clients written, and the change publishes them, with the answers' clients
 * as their objects, after its commit.
 */
export async function writeClients(change: Change, writes: ClientWrite[]): Promise<ClientOutcome[]> {
  const outcomes: (ClientOutcome | undefined)[] = writes.map(() => undefined);
  let pending = writes.map((write, idx) => ({ idx, write }));
  for (let attempt = 1; pending.length; attempt++) {
    if (attempt > ATTEMPTS)
      throw new ApiError(503, "service_unavailable", "Concurrent writes kept changing these clients; retry", null, { "Retry-After": "1" });
    let answers: (ClientOutcome | undefined)[];
    try {
      // Undoable: in a transaction (an Idempotency-Key's, an atomic batch's) a refused statement would
      // otherwise abort it, and the next statement with it.
      answers = await change.undoable(() => writeOnce(change, pending));
    } catch (error) {
      // An update's external id taken by a write that committed after the statement's snapshot: nothing was
      // written; the next statement sees that row and answers 409.
      if (isUniqueViolation(error, "clients_company_external_id_uq")) continue;
      throw error;
    }
    pending.forEach(({ idx }, k) => {
      outcomes[idx] = answers[k];
    });
    pending = pending.filter(({ idx }) => outcomes[idx] === undefined);
  }
  const done = outcomes as ClientOutcome[];
  const objects = new Map(done.flatMap((o) => ("client" in o ? [[String(o.client.id), JSON.stringify(o.client)]] : [])));
  change.objects(clientEvents, (_db, event) => (event.type.startsWith("client.") ? objects.get(event.resourceId) : undefined));
  return done;
}

/** The single request's answer for one outcome: its error thrown, or its status, client and ETag. */
export function answerOf(outcome: ClientOutcome) {
  if ("error" in outcome) throw outcome.error;
  return outcome;
}
