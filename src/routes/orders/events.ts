import type { ResourceEvents } from "../../webhooks/events-catalog";

/** The orders' webhook events; `data.object` is `{ project, invoice }`, the invoice with its totals. */
export const orderEvents = {
  resource: "order",
  returnedBy:
    "POST /orders, PATCH /orders/{id} and PUT /orders/by-external-id/{external_id}: the project with its default invoice (totals included)",
  types: {
    "order.created": "An order (a project with its default invoice) was created",
    "order.updated":
      "An order changed: its fields, or its contents (line items and their decorations, payments, artworks) and so its totals; after " +
      "a change to a line item's decorations, `data.previous_attributes` holds that item's decorations as they were",
    "order.deleted": "An order was soft-deleted",
    "order.status_changed":
      "An order moved to another status (sent beside its `order.updated`); `data.previous_attributes.status_id` is the status it left",
  },
  schema: async () => (await import("./schema")).orderEnvelopeSchema(),
  path: (id) => `/orders/${id}`,
  render: async (db, event) => (await import("./webhook-object")).renderOrderObject(db, event),
  previousAttributes: {
    "order.updated": async () => (await import("./decorations/schema")).orderUpdatedPreviousSchema(),
    "order.status_changed": async () => (await import("./schema")).statusChangePreviousSchema(),
  },
} as const satisfies ResourceEvents;
