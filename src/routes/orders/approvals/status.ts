import { type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { approvals } from "../../../db/schema/approvals";
import { artworks, invoiceItems, invoices, taxes } from "../../../db/schema/orders";

/*
 * An approval's status, computed where it is read (never marked by the writes that change artworks or
 * totals): a stored answer (`approved`, `changes_requested`) or `revoked` as stored; a pending one is
 * `expired` past its `expires_at`, `stale` when one of its artworks changed (its `updated_at` moved on,
 * or it was deleted) or, when the total was asked, what the total is computed from changed; else `pending`.
 * Each is a correlated subquery over the approval's row, so a read stays one statement.
 */

export const APPROVAL_STATUSES = ["pending", "approved", "changes_requested", "expired", "revoked", "stale"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/**
 * A digest of what the order's total is computed from (the default invoice's discount and tax terms, its
 * tax's rate, its live items' quantities and prices): equal digests, equal totals. Payments are not in it.
 */
export const totalInputsSql = (projectId: AnyPgColumn | SQL | number): SQL<string | null> => sql`(
  select md5(concat_ws('|', i.discount_amount::text, i.discount_amount_type, i.discount_type, i.tax_exempt::text,
    coalesce((select t.rate::text from ${taxes} t where t.id = i.tax_id), '-'),
    coalesce((select string_agg(it.quantity::text || '*' || it.unit_price::text, ',' order by it.id)
      from ${invoiceItems} it where it.invoice_id = i.id and it.deleted_at is null), '')))
  from ${invoices} i where i.project_id = ${projectId} and i.is_default and i.deleted_at is null)`;

/** Whether one of the approval's artworks is no longer the version it was asked for. */
const artworksChangedSql = sql`exists (
  select 1 from jsonb_to_recordset(${approvals.artworks}) as v(id int, updated_at timestamptz)
  left join ${artworks} w on w.id = v.id and w.deleted_at is null
  where w.updated_at is distinct from v.updated_at)`;

/** True when the pending approval no longer shows what it was asked for. */
export const staleSql = sql<boolean>`(${artworksChangedSql} or (${approvals.includeTotal}
  and ${approvals.totalInputs} is distinct from ${totalInputsSql(approvals.projectId)}))`;

/** The approval's status as the API shows it. */
export const approvalStatusSql = sql<ApprovalStatus>`(case
  when ${approvals.status} <> 'pending' then ${approvals.status}
  when ${approvals.expiresAt} <= now() then 'expired'
  when ${staleSql} then 'stale'
  else 'pending' end)`;

/** Whether the approval can take an answer now: pending, not expired, not stale (the answer's WHERE). */
export const answerableSql = sql`(${approvals.status} = 'pending' and ${approvals.expiresAt} > now() and not ${staleSql})`;

/**
 * Each artwork's latest approval of the order (`{ "<artwork id>": { id, status, expires_at, responded_at } }`),
 * for GET /orders/{id}: one correlated subquery over the order's approvals.
 */
export const artworkApprovalsSql = (companyId: number, projectId: AnyPgColumn) => sql<Record<
  string,
  { id: number; status: ApprovalStatus; expires_at: string; responded_at: string | null }
> | null>`(
  select jsonb_object_agg(x.artwork_id, jsonb_build_object('id', x.id, 'status', x.status, 'expires_at', x.expires_at, 'responded_at', x.responded_at))
  from (
    select distinct on (v.id) v.id as artwork_id, ${approvals.id} as id, ${approvalStatusSql} as status,
      ${approvals.expiresAt} as expires_at, ${approvals.respondedAt} as responded_at
    from ${approvals} cross join jsonb_to_recordset(${approvals.artworks}) as v(id int, updated_at timestamptz)
    where ${approvals.companyId} = ${companyId} and ${approvals.projectId} = ${projectId}
    order by v.id, ${approvals.id} desc
  ) x)`;
