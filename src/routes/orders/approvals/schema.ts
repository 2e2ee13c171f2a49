import { z } from "@hono/zod-openapi";
import type { approvals } from "../../../db/schema/approvals";
import { dbId, nullableText, schemaOnce, timestamp, wireFields } from "../../../http/openapi";
import { APPROVAL_STATUSES, type ApprovalStatus } from "./status";

/** Artworks one approval asks about, at most. */
export const MAX_APPROVAL_ARTWORKS = 50;
/** How long a link lives by default, and at most. */
export const DEFAULT_EXPIRY_DAYS = 14;
export const MAX_EXPIRY_DAYS = 90;
const DAY_MS = 86_400_000;

export const approvalCreateSchema = schemaOnce(() =>
  z
    .strictObject({
      artwork_ids: z
        .array(dbId())
        .min(1)
        .max(MAX_APPROVAL_ARTWORKS)
        .refine((ids) => new Set(ids).size === ids.length, { message: "Each artwork once" })
        .openapi({ description: "Live artworks of the order to approve (their current versions)", example: [12] }),
      include_total: z.boolean().optional().openapi({ description: "Also ask to approve the order's current total (default false)" }),
      message: nullableText(2000, "Here is the proof for your spring jerseys.").openapi({
        description: "Shown to the customer on the page",
      }),
      expires_at: z.iso
        .datetime({ offset: true })
        .max(40)
        .optional()
        .refine((v) => v === undefined || (Date.parse(v) > Date.now() && Date.parse(v) <= Date.now() + MAX_EXPIRY_DAYS * DAY_MS), {
          message: `Must be in the future, at most ${MAX_EXPIRY_DAYS} days ahead`,
        })
        .openapi({ description: `When the link stops working (default ${DEFAULT_EXPIRY_DAYS} days from now; at most ${MAX_EXPIRY_DAYS})` }),
    })
    .openapi("ApprovalCreate"),
);
export type ApprovalCreate = z.infer<ReturnType<typeof approvalCreateSchema>>;

export const approvalSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int(),
      order_id: z.number().int().openapi({ description: "The order (project) id" }),
      status: z.enum(APPROVAL_STATUSES).openapi({
        description:
          "`pending` until answered; `approved` or `changes_requested` once answered; `revoked`; `expired` past `expires_at` " +
          "unanswered; `stale` when an artwork (or, with `include_total`, what the total is computed from) changed while pending",
      }),
      artworks: z
        .array(z.object({ id: z.number().int(), updated_at: timestamp() }))
        .openapi({ description: "The artworks asked about, each at the version (`updated_at`) it had then" }),
      include_total: z.boolean(),
      total: z
        .string()
        .nullable()
        .openapi({ description: "The order's total when asked (with `include_total`), else null", example: "480.00" }),
      message: z.string().nullable(),
      expires_at: timestamp(),
      responder_name: z.string().nullable().openapi({ description: "Who answered (required with an approval)" }),
      responder_email: z.string().nullable(),
      comment: z.string().nullable().openapi({ description: "The customer's comment (required when requesting changes)" }),
      responded_at: timestamp().nullable(),
      revoked_at: timestamp().nullable(),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("Approval"),
);
export type ApprovalWire = z.infer<ReturnType<typeof approvalSchema>>;

export const approvalCreatedSchema = schemaOnce(() =>
  z
    .object({
      approval: approvalSchema(),
      url: z.string().openapi({
        description: "The public page for the customer. Its token is shown only in this answer (the API stores a digest of it)",
        example: "https://api.example/approve/3q2-7wX…",
      }),
    })
    .openapi("ApprovalCreated"),
);

export const approvalEnvelopeSchema = schemaOnce(() => z.object({ approval: approvalSchema() }).openapi("ApprovalEnvelope"));

/** An artwork's latest approval, as GET /orders/{id} shows it on each artwork. */
export const artworkApprovalSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int(),
      status: z.enum(APPROVAL_STATUSES),
      expires_at: timestamp(),
      responded_at: timestamp().nullable(),
    })
    .nullable()
    .openapi("ArtworkApproval", { description: "The artwork's latest approval (any status); null when none was asked" }),
);

type Row = typeof approvals.$inferSelect;
export const serializeApproval = (row: Row, status: ApprovalStatus): ApprovalWire => ({
  ...wireFields(row, ["id"]),
  order_id: row.projectId,
  status,
  artworks: row.artworks.map((a) => ({ id: a.id, updated_at: new Date(a.updated_at).toISOString() })),
  ...wireFields(row, [
    "includeTotal",
    "total",
    "message",
    "expiresAt",
    "responderName",
    "responderEmail",
    "comment",
    "respondedAt",
    "revokedAt",
    "createdAt",
    "updatedAt",
  ]),
});
