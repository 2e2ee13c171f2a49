import type { ResourceEvents } from "../../webhooks/events-catalog";

/** The email threads' webhook events; `data.object` is the thread as PUT and GET answer it. */
export const emailThreadEvents = {
  resource: "email_thread",
  returnedBy: "PUT and GET /mail/email-threads/{legacyThreadId}",
  types: { "email_thread.upserted": "An email thread was stored or replaced (PUT)" },
  schema: async () => (await import("./schema")).emailThreadSchema(),
  render: async (db, event) => (await import("./webhook-object")).renderEmailThreadObject(db, event),
} as const satisfies ResourceEvents;
