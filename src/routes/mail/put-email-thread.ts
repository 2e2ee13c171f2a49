import { createRoute } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { emailThreads } from "../../db/schema";
import { authErrors, errorResponses } from "../../lib/errors";
import { MAX_JSON_DEPTH } from "../../lib/json-body";
import { bearerSecurity, type Router } from "../../lib/openapi";
import { excluded } from "./queries";
import {
  EMAIL_THREAD_BODY_LIMIT,
  EmailThreadEnvelopeSchema,
  EmailThreadPutSchema,
  legacyThreadIdParam,
  serializeEmailThread,
  toDate,
  type EmailThreadPut,
} from "./schema";

const route = createRoute({
  method: "put",
  path: "/mail/email-threads/{legacyThreadId}",
  tags: ["Mail"],
  summary: "Create or replace a stored email thread",
  description:
    "Upserts the thread for (caller's company, `account_email`, legacy thread id) in one statement, so concurrent PUTs for one key leave one row. " +
    "The same legacy id under another mailbox is another thread. The first PUT inserts; later PUTs update that row: every field sent " +
    "replaces the stored value whole (arrays are never merged; `null` clears a nullable scalar), fields left out keep their stored value " +
    "(on insert: `participants` and `labels` default to `[]`, other scalars to null). `messages` is required and always replaced, " +
    "`message_count` is its length, `last_synced_at` defaults to the server time of this request, and the thread is un-deleted. " +
    "`account_email` must be a valid address and is stored lowercase. Messages are stored as sent (as a JSON value: object key order " +
    `is not kept) without per-message validation; only what PostgreSQL cannot store is refused with 400: the NUL character (U+0000) ` +
    `in any string or key, and JSON nested deeper than ${MAX_JSON_DEPTH} levels. Timestamps are ISO 8601 date-times with an offset ` +
    "(returned in UTC, millisecond precision). Response `{ email_thread }` with the §4.5 fields; the internal `deleted` flag is not returned " +
    `(it is always false after a PUT). The body may be up to ${EMAIL_THREAD_BODY_LIMIT} bytes (8 MiB); larger bodies get 413.`,
  security: bearerSecurity,
  request: {
    params: legacyThreadIdParam,
    body: { required: true, content: { "application/json": { schema: EmailThreadPutSchema } } },
  },
  responses: {
    200: { description: "The stored thread (created or updated)", content: { "application/json": { schema: EmailThreadEnvelopeSchema } } },
    ...errorResponses(400, 413, 415),
    ...authErrors,
  },
});

/** Body → columns; optional fields only when sent, so an update leaves unsent ones alone. */
function threadColumns(body: EmailThreadPut) {
  const columns: Partial<typeof emailThreads.$inferInsert> = {
    mailThreadId: body.mail_thread_id,
    subject: body.subject,
    snippet: body.snippet,
    participants: body.participants,
    labels: body.labels,
    firstMessageAt: toDate(body.first_message_at),
    lastMessageAt: toDate(body.last_message_at),
    mailHistoryId: body.mail_history_id,
  };
  for (const key of Object.keys(columns) as (keyof typeof columns)[]) if (columns[key] === undefined) delete columns[key];
  return columns;
}

export const registerPutEmailThread = (api: Router) =>
  api.openapi(route, async (c) => {
    const { legacyThreadId } = c.req.valid("param");
    const body = c.req.valid("json");
    const written = {
      ...threadColumns(body),
      messages: body.messages,
      messageCount: body.messages.length,
      lastSyncedAt: body.last_synced_at ? new Date(body.last_synced_at) : sql`now()`,
      deleted: false,
    };
    // One statement: the row lock of ON CONFLICT serialises concurrent PUTs, each applied whole.
    // The update reads `excluded`, so the (possibly multi-MiB) values are sent to PostgreSQL once.
    const [row] = await c.var.db
      .insert(emailThreads)
      .values({ ...written, companyId: c.var.auth.companyId, accountEmail: body.account_email, legacyThreadId })
      .onConflictDoUpdate({
        target: [emailThreads.companyId, emailThreads.accountEmail, emailThreads.legacyThreadId],
        set: {
          ...Object.fromEntries(Object.keys(written).map((k) => [k, excluded(emailThreads[k as keyof typeof written])])),
          updatedAt: sql`now()`,
        },
      })
      .returning();
    return c.json({ email_thread: serializeEmailThread(row) }, 200);
  });
