import { sql } from "drizzle-orm";
import { boolean, check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { identityId, ref } from "./columns";
import { companies } from "./companies";
import { projects } from "./orders";

/** The answers a customer gives; `pending` until then, `revoked` when the shop took the link back. */
export const APPROVAL_STORED_STATUSES = ["pending", "approved", "changes_requested", "revoked"] as const;

/** An artwork as it was when the approval was asked: its id and its `updated_at` (its version). */
export interface ApprovalArtworkVersion {
  id: number;
  updated_at: string;
}

/**
 * A proof approval: a set of the order's artworks (each at its version then) and, when asked, the order's
 * total then, sent to the customer as a public link. The link's token is stored only as its SHA-256 digest.
 * `expired` and `stale` are not stored: they are computed when read (routes/orders/approvals/queries.ts).
 */
export const approvals = pgTable(
  "approvals",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    projectId: ref("project_id", () => projects.id),
    tokenDigest: text("token_digest").notNull(),
    artworks: jsonb("artworks").$type<ApprovalArtworkVersion[]>().notNull(),
    includeTotal: boolean("include_total").notNull().default(false),
    // The order's total when asked (null unless include_total) and a digest of what the total is computed from.
    total: text("total"),
    totalInputs: text("total_inputs"),
    message: text("message"),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    status: text("status").notNull().default("pending"),
    responderName: text("responder_name"),
    responderEmail: text("responder_email"),
    comment: text("comment"),
    respondedAt: timestamp("responded_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("approvals_token_digest_uq").on(t.tokenDigest),
    // An order's approvals, newest first (the list and GET /orders/{id}).
    index("approvals_company_project_idx").on(t.companyId, t.projectId, t.id),
    check("approvals_status_ck", sql`${t.status} in ('pending', 'approved', 'changes_requested', 'revoked')`),
  ],
);
