import type { ResourceEvents } from "../../webhooks/events-catalog";

/** The clients' webhook events; `data.object` is the client as the API returns it. */
export const clientEvents = {
  resource: "client",
  returnedBy: "POST /clients, PATCH /clients/{id}, PUT /clients/by-external-id/{external_id} and GET /clients/{id}",
  types: {
    "client.created": "A client was created",
    "client.updated": "A client's fields changed",
    "client.deleted": "A client was soft-deleted (`deleted_at` set)",
  },
  schema: async () => (await import("../../domain/client")).clientSchema(),
  path: (id) => `/clients/${id}`,
  render: async (db, event) => (await import("./webhook-object")).renderClientObject(db, event),
  previousAttributes: { "client.updated": async () => (await import("./schema")).clientUpdatePreviousSchema() },
} as const satisfies ResourceEvents;
