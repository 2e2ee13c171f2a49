import { getTableColumns, type SQL, sql } from "drizzle-orm";
import { type Change, COMPANY_ID, type Statement, type StatementQuery } from "../../changes/change";
import { eventOf } from "../../changes/effects";
import { clients } from "../../db/schema/clients";
import { decorations } from "../../db/schema/decorations";
import { artworks, invoiceItems, invoices, orderStatuses, payments, projects, taxes } from "../../db/schema/orders";
import { externalIdTaken, mergedMetadata, metadataChange } from "../../domain/external";
import { type ApiError, invalid } from "../../http/errors";
import type { Db } from "../../platform/db";
import { nextId, rowOf } from "../../platform/sql-kit";
import { newItemQuantity } from "./contents/schema";
import { orderEvents } from "./events";
import { companySyncSql, orderEtag, unknownReference } from "./queries";
import { type OrderEnvelope, orderEnvelope } from "./serialize";
import type { OrderContentsInput, OrderCreate } from "./write-schema";

/*
 * Orders created whole: POST /orders, the creates of PUT /orders/by-external-id/{external_id} and of
 * POST /orders/batch, and the operator's import, as ONE statement for any number of orders: each
 * order's client (and, from the import, status and tax) is checked, and the orders that pass get their
 * project, default invoice, line items, payments and artworks, the accounting `create` when sync
 * applies, and their `order.created` event, set-based. The statement answers, per order, why it was
 * refused or what it wrote, so nothing is half-written and nothing is queried row by row.
 */

type Project = typeof projects.$inferSelect;

/** Invoice fields only the import sets on a new order (the API's create starts from the client's tax exemption, no tax, no discount). */
export interface ImportedInvoice {
  due_date?: string | null;
  client_notes?: string | null;
  tax_id?: number | null;
  tax_exempt?: boolean;
  tax_exempt_reason?: string | null;
  discount_amount?: string;
  discount_amount_type?: "percentage" | "fixed_amount";
  discount_type?: "before_tax" | "after_tax";
}

/** One order to create: the API's create body, and what only the import gives (history: its time, status, dates, invoice terms). */
export interface OrderCreateWrite {
  body: OrderCreate;
  imported?: {
    createdAt?: string;
    statusId?: number | null;
    startDate?: string | null;
    deadline?: string | null;
    invoice?: ImportedInvoice;
  };
}

/** A create's outcome: the envelope (what POST /orders answers) with the project row, or the error; `taken`: another live order has its external id (an upsert updates that one). */
export type OrderCreateOutcome =
  | { order: OrderEnvelope; project: Project; etag: string; contentIds: { items: number[]; payments: number[]; artworks: number[] } }
  | { error: ApiError; taken?: boolean };

/** The new contents' rows as the statement stores them (values canonical: as stored, so totals computed from them are the stored ones). */
function contentsRows(contents: OrderContentsInput, approvedNow: boolean) {
  return {
    items: (contents.items ?? []).map((it, position) => ({
      title: it.title,
      description: it.description ?? null,
      quantity: newItemQuantity(it),
      unit_price: it.unit_price,
      sizes: it.sizes ?? null,
      position,
      decorations: (it.decorations ?? []).map((d, at) => ({
        ...d,
        colors: (d.colors ?? []).map((c) => ({ name: c.name, code: c.code ?? null })),
        artwork_index: d.artwork_index ?? null,
        position: at,
      })),
    })),
    payments: (contents.payments ?? []).map((p) => ({
      amount: p.amount,
      paid_date: p.paid_date ?? null,
      method: p.method ?? null,
      reference: p.reference ?? null,
    })),
    artworks: (contents.artworks ?? []).map((a) => ({
      print_method: a.print_method ?? null,
      placements: a.placements ?? [],
      colors: a.colors ?? [],
      preview_url: a.preview_url ?? null,
      status: a.status ?? "draft",
      approved: approvedNow && a.status === "approved",
    })),
  };
}
export type ContentsRows = ReturnType<typeof contentsRows>;
export const newContentsRows = (contents: OrderContentsInput) => contentsRows(contents, true);

/** The input row of one create (SQL column names). */
function inputOf({ body, imported }: OrderCreateWrite, idx: number) {
  const meta = metadataChange(body.metadata, true);
  return {
    idx,
    project: {
      client_id: body.client_id,
      title: body.title,
      description: body.description ?? null,
      external_id: body.external_id ?? null,
      metadata: mergedMetadata({}, meta),
      status_id: imported?.statusId ?? null,
      start_date: imported?.startDate ?? null,
      deadline: imported?.deadline ?? null,
      created_at: imported?.createdAt ?? null,
    },
    // Only the fields the import gives; the others take the create's defaults below.
    invoice: imported?.invoice ?? {},
    sync: body.quickbooks_enabled ?? null,
    ...contentsRows(body, true),
  };
}

/**
 * The contents CTEs of a statement: the rows of `rows` (a jsonb array column of `source`) inserted for
 * the invoice (items, payments) or project (artworks) that `source` joins to, created at `at`; each
 * item's decorations on that item, their `artwork_index` the artwork inserted at that index.
 */
export function contentsCtes(
  db: Change["db"],
  companyId: number | SQL,
  source: { from: SQL; invoiceId: string; projectId: string; at: string; rows: SQL },
  suffix = "",
) {
  const { from, invoiceId, projectId, at, rows } = source;
  // In array order (ids grow with it), so each new row's id is known by its index.
  const item = db.$with(`new_item${suffix}`, getTableColumns(invoiceItems)).as(sql`
    insert into ${invoiceItems} (company_id, invoice_id, title, description, quantity, unit_price, sizes, position, created_at, updated_at)
    select ${companyId}, ${sql.raw(invoiceId)}, r.title, r.description, r.quantity, r.unit_price, r.sizes, r.position, ${sql.raw(at)}, ${sql.raw(at)}
    ${from}, jsonb_array_elements((${rows})->'items') with ordinality a(v, n), jsonb_populate_record(null::${invoiceItems}, a.v) r
    order by ${sql.raw(invoiceId)}, a.n
    returning *`);
  const payment = db.$with(`new_payment${suffix}`, getTableColumns(payments)).as(sql`
    insert into ${payments} (company_id, invoice_id, amount, paid_date, method, reference, created_at, updated_at)
    select ${companyId}, ${sql.raw(invoiceId)}, r.amount, r.paid_date, r.method, r.reference, ${sql.raw(at)}, ${sql.raw(at)}
    ${from}, jsonb_array_elements((${rows})->'payments') with ordinality a(v, n), jsonb_populate_record(null::${payments}, a.v) r
    order by ${sql.raw(invoiceId)}, a.n
    returning *`);
  const artwork = db.$with(`new_artwork${suffix}`, getTableColumns(artworks)).as(sql`
    insert into ${artworks} (company_id, project_id, print_method, placements, colors, preview_url, status, approved_at, created_at, updated_at)
    select ${companyId}, ${sql.raw(projectId)}, a.v->>'print_method', coalesce(a.v->'placements', '[]'::jsonb), coalesce(a.v->'colors', '[]'::jsonb),
      a.v->>'preview_url', a.v->>'status', case when (a.v->>'approved')::boolean then ${sql.raw(at)} end, ${sql.raw(at)}, ${sql.raw(at)}
    ${from}, jsonb_array_elements((${rows})->'artworks') with ordinality a(v, n)
    order by ${sql.raw(projectId)}, a.n
    returning *`);
  const decoration = db.$with(`new_decoration${suffix}`, getTableColumns(decorations)).as(sql`
    insert into ${decorations} (company_id, project_id, invoice_item_id, location, location_detail, method, colors, color_count, stitch_count,
      width, height, unit, artwork_id, notes, position, created_at, updated_at)
    select ${companyId}, ${sql.raw(projectId)}, i.id, r.location, r.location_detail, r.method, coalesce(d.v->'colors', '[]'::jsonb), r.color_count,
      r.stitch_count, r.width, r.height, r.unit,
      -- (OFFSET null would mean none: a decoration without artwork_index has no artwork.)
      case when d.v->>'artwork_index' is not null then
        (select w.id from ${artwork} w where w.project_id = ${sql.raw(projectId)} order by w.id offset (d.v->>'artwork_index')::int limit 1) end,
      r.notes, d.m - 1, ${sql.raw(at)}, ${sql.raw(at)}
    ${from}, jsonb_array_elements((${rows})->'items') with ordinality a(v, n), ${item} i,
      jsonb_array_elements(coalesce(a.v->'decorations', '[]'::jsonb)) with ordinality d(v, m), jsonb_populate_record(null::${decorations}, d.v) r
    where i.invoice_id = ${sql.raw(invoiceId)} and i.position = a.n - 1
    order by i.id, d.m
    returning *`);
  return [item, payment, artwork, decoration] as const;
}

/**
 * The statement creating orders, the same text for any creates: they travel as one jsonb parameter
 * (`input`), the company as COMPANY_ID. Built once per isolate (Change.writePrepared).
 */
const orderCreate = (db: Db) => {
  const input = db.$with("input", {}).as(sql`
    select (e.item->>'idx')::int as idx, e.item as v, jsonb_populate_record(null::${projects}, e.item->'project') as p,
           jsonb_populate_record(null::${invoices}, e.item->'invoice') as inv, e.item->'invoice' as inv_given, (e.item->>'sync')::boolean as sync
    from jsonb_array_elements(${sql.placeholder("input")}::jsonb) as e(item)`);
  const checked = db.$with("checked", { idx: sql<number>`idx`.as("idx") }).as(sql`
    select i.*, c.id as client_found, c.tax_exempt as client_tax_exempt, c.tax_exempt_reason as client_tax_exempt_reason,
      (select pr.id from ${projects} pr where pr.company_id = ${COMPANY_ID} and pr.deleted_at is null and (i.p).external_id is not null
         and pr.external_id = (i.p).external_id limit 1) as conflict_id,
      ((i.p).status_id is null or exists (select 1 from ${orderStatuses} s
         where s.company_id = ${COMPANY_ID} and s.id = (i.p).status_id and s.deleted_at is null)) as status_ok,
      (select t.rate::text from ${taxes} t where t.company_id = ${COMPANY_ID} and t.id = (i.inv).tax_id and t.deleted_at is null) as tax_rate
    from input i
    left join ${clients} c on c.company_id = ${COMPANY_ID} and c.deleted_at is null and c.id = (i.p).client_id`);
  const go = db.$with("go", { idx: sql<number>`idx`.as("idx") }).as(sql`
    select c.*, ${nextId(projects)} as new_id from checked c
    where c.client_found is not null and c.conflict_id is null and c.status_ok and ((c.inv).tax_id is null or c.tax_rate is not null)`);
  const at = "coalesce((g.p).created_at, now())";
  const project = db.$with("project", getTableColumns(projects)).as(sql`
    insert into ${projects} (id, company_id, client_id, title, description, start_date, deadline, status_id, external_id, metadata, created_at, updated_at)
    overriding system value
    select g.new_id, ${COMPANY_ID}, (g.p).client_id, (g.p).title, (g.p).description, (g.p).start_date, (g.p).deadline, (g.p).status_id,
      (g.p).external_id, (g.p).metadata, ${sql.raw(at)}, ${sql.raw(at)}
    -- In external id order: concurrent statements inserting the same ids wait for each other, never deadlock.
    from go g order by (g.p).external_id, g.idx
    on conflict (company_id, external_id) where deleted_at is null and external_id is not null do nothing
    returning *`);
  const given = (field: string, fallback: string) =>
    sql.raw(`case when g.inv_given ? '${field}' then (g.inv).${field} else ${fallback} end`);
  const invoice = db.$with("invoice", getTableColumns(invoices)).as(sql`
    insert into ${invoices} (company_id, project_id, client_id, due_date, client_notes, tax_id, tax_exempt, tax_exempt_reason,
      discount_amount, discount_amount_type, discount_type, created_at, updated_at)
    select ${COMPANY_ID}, p.id, p.client_id, ${given("due_date", "p.deadline")}, (g.inv).client_notes, (g.inv).tax_id,
      ${given("tax_exempt", "g.client_tax_exempt")}, ${given("tax_exempt_reason", "g.client_tax_exempt_reason")},
      coalesce((g.inv).discount_amount, 0), coalesce((g.inv).discount_amount_type, 'percentage'), coalesce((g.inv).discount_type, 'before_tax'),
      p.created_at, p.created_at
    from project p join go g on g.new_id = p.id
    returning *`);
  const contents = contentsCtes(db, COMPANY_ID, {
    from: sql`from ${invoice} inv join go g on g.new_id = inv.project_id`,
    invoiceId: "inv.id",
    projectId: "inv.project_id",
    at: "inv.created_at",
    rows: sql`g.v`,
  });
  return {
    statement: {
      with: [input, checked, go, project, invoice, ...contents],
      accounting: [
        {
          projectId: sql`invoice.project_id`,
          invoiceId: sql`invoice.id`,
          operation: "create",
          payload: {},
          // The request's quickbooks_enabled when sent, else the company's setting (syncApplies, in SQL).
          from: sql`from ${invoice} join go on go.new_id = invoice.project_id where coalesce(go.sync, ${companySyncSql(COMPANY_ID)})`,
        },
      ],
      events: [eventOf(orderEvents, "order.created", { id: project.id, from: project })],
    } satisfies Statement,
    query: (q: StatementQuery) =>
      q
        .select({
          idx: sql<number>`checked.idx`,
          clientFound: sql<boolean>`checked.client_found is not null`,
          conflictId: sql<number | null>`checked.conflict_id`,
          statusOk: sql<boolean>`checked.status_ok`,
          taxOk: sql<boolean>`((checked.inv).tax_id is null or checked.tax_rate is not null)`,
          taxRate: sql<string | null>`checked.tax_rate`,
          project: rowOf(projects, "project"),
          invoice: rowOf(invoices, "invoice"),
          // The new contents' ids, in the order given.
          contentIds: sql<{
            items: number[];
            payments: number[];
            artworks: number[];
          } | null>`case when invoice.id is null then null else json_build_object(
            'items', (select coalesce(json_agg(i.id order by i.id), '[]') from new_item i where i.invoice_id = invoice.id),
            'payments', (select coalesce(json_agg(p.id order by p.id), '[]') from new_payment p where p.invoice_id = invoice.id),
            'artworks', (select coalesce(json_agg(a.id order by a.id), '[]') from new_artwork a where a.project_id = invoice.project_id)) end`,
          etag: sql<string | null>`case when project.id is null then null else ${orderEtag(
            sql`project.id`,
            sql`project.updated_at`,
            sql`invoice.updated_at`,
            sql`project.client_id`,
          )} end`,
        })
        .from(checked)
        .leftJoin(go, sql`go.idx = checked.idx`)
        .leftJoin(project, sql`project.id = go.new_id`)
        .leftJoin(invoice, sql`invoice.project_id = project.id`),
  };
};

/**
 * One statement creating `creates`; answers each one's outcome in order. Events and outbox rows are
 * written for the orders created, and published by the change after its commit.
 */
export async function createOrders(change: Change, creates: OrderCreateWrite[]): Promise<OrderCreateOutcome[]> {
  if (!creates.length) return [];
  const rows = await change.writePrepared("order_create", orderCreate, { input: JSON.stringify(creates.map(inputOf)) });
  const byIdx = new Map(rows.map((r) => [r.idx, r]));
  const outcomes = creates.map(({ body }, idx): OrderCreateOutcome => {
    const r = byIdx.get(idx)!;
    const details = [
      ...(r.clientFound ? [] : [unknownReference("client_id", "client")]),
      ...(r.statusOk ? [] : [unknownReference("status_id", "order status")]),
      ...(r.taxOk ? [] : [unknownReference("invoice.tax_id", "tax")]),
    ];
    if (details.length) return { error: invalid("Invalid request body", details) };
    if (r.conflictId !== null) return { error: externalIdTaken("order", r.conflictId), taken: true };
    // Passed its checks, not written: a concurrent write took its external id first.
    if (!r.project || !r.invoice) return { error: externalIdTaken("order", null), taken: true };
    const { items, payments: paid } = contentsRows(body, true);
    const order = orderEnvelope({ project: r.project, invoice: r.invoice, taxRate: r.taxRate, lines: items, payments: paid });
    return { order, project: r.project, etag: r.etag!, contentIds: r.contentIds! };
  });
  // Each `order.created` event carries the order as its create answers it.
  const objects = new Map(outcomes.flatMap((o) => ("order" in o ? [[String(o.project.id), JSON.stringify(o.order)]] : [])));
  change.objects(orderEvents, (_db, event) => (event.type === "order.created" ? objects.get(event.resourceId) : undefined));
  return outcomes;
}
