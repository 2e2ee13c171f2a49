import type { ResourceEvents } from "../../../webhooks/events-catalog";

/** Proof approvals' webhook events; `data.object` is the approval as GET /approvals/{id} answers it. */
export const approvalEvents = {
  resource: "approval",
  returnedBy: "GET /approvals/{id} and POST /approvals/{id}/revoke: the approval (`{ approval }` holds it)",
  types: {
    "approval.requested": "A proof approval was asked for (POST /orders/{id}/approvals); the link itself is never in an event",
    "approval.responded":
      "The customer answered through the link: `status` is `approved` (with `responder_name`, `responder_email`) or `changes_requested` (with `comment`)",
    "approval.revoked": "The shop revoked an approval's link",
  },
  schema: async () => (await import("./schema")).approvalSchema(),
  path: (id) => `/approvals/${id}`,
  render: async (db, event) => (await import("./webhook-object")).renderApprovalObject(db, event),
} as const satisfies ResourceEvents;
