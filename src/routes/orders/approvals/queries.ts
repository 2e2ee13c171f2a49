import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { Change } from "../../../changes/change";
import { eventOf } from "../../../changes/effects";
import { type ApprovalArtworkVersion, approvals } from "../../../db/schema/approvals";
import { companies } from "../../../db/schema/companies";
import { decorations } from "../../../db/schema/decorations";
import { artworks, invoices, projects, taxes } from "../../../db/schema/orders";
import { ApiError, invalid, notFound } from "../../../http/errors";
import type { Db } from "../../../platform/db";
import { defaultInvoiceOf, invoiceAmountsColumns, liveProjects } from "../queries";
import { orderTotals } from "../serialize";
import { approvalEvents } from "./events";
import { approvalWithStatus, loadApproval } from "./read";
import { type ApprovalCreate, DEFAULT_EXPIRY_DAYS, serializeApproval } from "./schema";
import { type ApprovalStatus, answerableSql, approvalStatusSql, totalInputsSql } from "./status";

/** The link's token: 32 random bytes (256 bits), base64url. */
export function newApprovalToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=/g, ""); // base64 has "=" only as its end's padding
}

/** What the database keeps of a token: its SHA-256 digest (hex). */
export async function tokenDigest(token: string): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Bumps the order's `updated_at` (its ETag: GET /orders/{id} shows each artwork's approval state) in the same statement. */
const touchOrder = (db: Db, companyId: number, projectId: SQL | number) =>
  db.$with("order_touched").as(
    db
      .update(projects)
      .set({ updatedAt: sql`now()` })
      .where(and(eq(projects.companyId, companyId), sql`${projects.id} = ${projectId}`))
      .returning({ id: projects.id }),
  );

/**
 * Asks for an approval: one read (the order, its amounts, the artworks' versions, the digest of the
 * total's inputs), then one statement writing the approval, its event and the order's new `updated_at`.
 * The versions and digest stored are the ones read: if something changed in between, the approval is
 * stale from the start rather than tied to versions nobody saw.
 */
export async function createApproval(change: Change, projectId: number, body: ApprovalCreate, digest: string) {
  const { db, companyId } = change;
  const [order] = await db
    .select({
      id: projects.id,
      invoice: invoices,
      taxRate: taxes.rate,
      ...invoiceAmountsColumns(invoices.id),
      totalInputs: totalInputsSql(projects.id),
      artworks: sql<
        ApprovalArtworkVersion[]
      >`(select coalesce(jsonb_agg(jsonb_build_object('id', w.id, 'updated_at', w.updated_at) order by w.id), '[]'::jsonb)
        from ${artworks} w where w.company_id = ${companyId} and w.project_id = ${projects.id} and w.deleted_at is null
        and w.id in (${sql.join(
          body.artwork_ids.map((id) => sql`${id}::int`),
          sql`, `,
        )}))`,
    })
    .from(projects)
    .innerJoin(invoices, defaultInvoiceOf(projects.id))
    .leftJoin(taxes, eq(taxes.id, invoices.taxId))
    .where(and(liveProjects(companyId), eq(projects.id, projectId)));
  if (!order) throw notFound("Order");
  const found = new Set(order.artworks.map((a) => a.id));
  const unknown = body.artwork_ids.flatMap((id, i) =>
    found.has(id) ? [] : [{ field: `artwork_ids.${i}`, message: "No such artwork in this order" }],
  );
  if (unknown.length) throw invalid("Unknown artworks", unknown);
  const total = body.include_total ? orderTotals(order).total : null;
  const expiresAt = body.expires_at ? new Date(body.expires_at) : new Date(Date.now() + DEFAULT_EXPIRY_DAYS * 86_400_000);
  const inserted = db.$with("approval").as(
    db
      .insert(approvals)
      .values({
        companyId,
        projectId,
        tokenDigest: digest,
        artworks: order.artworks,
        includeTotal: body.include_total ?? false,
        total,
        totalInputs: body.include_total ? order.totalInputs : null,
        message: body.message ?? null,
        expiresAt,
      })
      .returning(),
  );
  const touched = touchOrder(db, companyId, projectId);
  const [row] = await change.write(
    { with: [inserted, touched], events: [eventOf(approvalEvents, "approval.requested", { id: inserted.id, from: inserted })] },
    (q) => q.select({ approval: inserted._.selectedFields }).from(inserted),
  );
  return serializeApproval(row.approval as typeof approvals.$inferSelect, "pending");
}

/**
 * Revokes a pending (or expired, or stale) approval: its link then shows the missing page. Revoking a
 * revoked one answers it unchanged; an answered one is 409.
 */
export async function revokeApproval(change: Change, id: number) {
  const { db, companyId } = change;
  const revoked = db.$with("approval").as(
    db
      .update(approvals)
      .set({ status: "revoked", revokedAt: sql`now()`, updatedAt: sql`now()` })
      .where(
        and(
          eq(approvals.id, id),
          eq(approvals.companyId, companyId),
          eq(approvals.status, "pending"),
          sql`exists (select 1 from ${projects} where ${projects.id} = ${approvals.projectId} and ${projects.deletedAt} is null)`,
        ),
      )
      .returning(),
  );
  const touched = touchOrder(db, companyId, sql`(select project_id from ${revoked})`);
  const [row] = await change.write(
    { with: [revoked, touched], events: [eventOf(approvalEvents, "approval.revoked", { id: revoked.id, from: revoked })] },
    (q) => q.select({ approval: revoked._.selectedFields }).from(revoked),
  );
  if (row) return serializeApproval(row.approval as typeof approvals.$inferSelect, "revoked");
  const current = await loadApproval(db, companyId, id);
  if (!current) throw notFound("Approval");
  if (current.status === "revoked") return serializeApproval(current.approval, "revoked");
  throw new ApiError(409, "conflict", "The approval was already answered", { status: current.status });
}

/** A proof as the public page shows it: the artwork now, and where the order's items decorate with it. */
export interface ProofShown {
  id: number;
  print_method: string | null;
  placements: string[];
  colors: string[];
  preview_url: string | null;
  decorations: {
    location: string;
    location_detail: string | null;
    method: string;
    colors: { name: string; code: string | null }[];
    width: string | null;
    height: string | null;
    unit: string | null;
  }[];
}

/** The public page's view of a link: the approval, its status, the shop, the order and its artworks as they are now. */
export async function approvalByDigest(db: Db, digest: string) {
  const [row] = await db
    .select({
      ...approvalWithStatus,
      shop: companies.name,
      title: projects.title,
      current: sql<ProofShown[]>`(
        select coalesce(jsonb_agg(jsonb_build_object('id', w.id, 'print_method', w.print_method, 'placements', w.placements,
          'colors', w.colors, 'preview_url', w.preview_url,
          'decorations', (select coalesce(jsonb_agg(jsonb_build_object('location', d.location, 'location_detail', d.location_detail,
              'method', d.method, 'colors', d.colors, 'width', d.width, 'height', d.height, 'unit', d.unit)
              order by d.invoice_item_id, d.position, d.id), '[]'::jsonb)
            from ${decorations} d where d.company_id = w.company_id and d.artwork_id = w.id and d.deleted_at is null)) order by w.id), '[]'::jsonb)
        from ${artworks} w where w.company_id = ${approvals.companyId} and w.deleted_at is null
        and w.id in (select (e->>'id')::int from jsonb_array_elements(${approvals.artworks}) e))`,
    })
    .from(approvals)
    .innerJoin(projects, and(eq(projects.id, approvals.projectId), isNull(projects.deletedAt)))
    .innerJoin(companies, eq(companies.id, approvals.companyId))
    .where(eq(approvals.tokenDigest, digest));
  return row;
}

export type Answer =
  | { answer: "approved"; name: string; email: string | null }
  | { answer: "changes_requested"; comment: string; name: string | null };

/**
 * The customer's answer, in one statement: written only while the approval is answerable (pending, not
 * expired, not stale), so of concurrent answers exactly one wins (the others find it answered once the
 * winner's row lock is released). Answers the approval, or undefined when nothing was written.
 */
export async function answerApproval(change: Change, approvalId: number, answer: Answer) {
  const { db } = change;
  const answered = db.$with("approval").as(
    db
      .update(approvals)
      .set({
        status: answer.answer,
        responderName: answer.name,
        responderEmail: answer.answer === "approved" ? answer.email : null,
        comment: answer.answer === "changes_requested" ? answer.comment : null,
        respondedAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(approvals.id, approvalId), eq(approvals.companyId, change.companyId), answerableSql))
      .returning(),
  );
  const touched = touchOrder(db, change.companyId, sql`(select project_id from ${answered})`);
  const [row] = await change.write(
    { with: [answered, touched], events: [eventOf(approvalEvents, "approval.responded", { id: answered.id, from: answered })] },
    (q) => q.select({ approval: answered._.selectedFields }).from(answered),
  );
  return row && serializeApproval(row.approval as typeof approvals.$inferSelect, answer.answer);
}

/** Statuses → the list's condition. */
export const statusFilter = (statuses: ApprovalStatus[] | undefined) =>
  statuses?.length ? inArray(approvalStatusSql, statuses) : undefined;
