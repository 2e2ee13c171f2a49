import type { ResourceEvents } from "../../webhooks/events-catalog";

/** The email threads' webhook events; `data.object` is the thread as PUT and GET answer it. */
export const emailThreadEvents = {
  resource: "email_thread",
  returnedBy: "PUT and GET /mail/email-threads/{legacyThreadId}",
  types: { "email_thread.upserted": "An email thread was stored or replaced (PUT)" },
  schema: async () => (await import("./schema")).emailThreadSchema(),
  path: (_id, object) => {
    const thread = JSON.parse(object) as { legacy_thread_id: string; account_email: string };
    return `/mail/email-threads/${encodeURIComponent(thread.legacy_thread_id)}?account_email=${encodeURIComponent(thread.account_email)}`;
  },
  render: async (db, event) => (await import("./webhook-object")).renderEmailThreadObject(db, event),
} as const satisfies ResourceEvents;
