import { type SQL, sql } from "drizzle-orm";
import type { TypedResponse } from "hono";
import { applyChange } from "../../changes/change";
import { eventOf } from "../../changes/effects";
import { emailThreads } from "../../db/schema/mail";
import { withEtag } from "../../http/etag";
import {
  NUMBER_MAX_EXPANDED_LENGTH,
  NUMERIC_MAX_INTEGER_DIGITS,
  NUMERIC_MAX_SCALE,
  stringifyWithRaw,
  unstorableNumbers,
} from "../../http/exact-json";
import { MAX_JSON_DEPTH, unstorableError } from "../../http/json-body";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { emailThreadEvents } from "./events";
import { type EmailThreadRow, EXACT_JSON_MEMBERS, type ExactJsonMember, emailThreadEtagOf, exactJsonText, excluded } from "./queries";
import {
  EMAIL_THREAD_BODY_LIMIT,
  type EmailThreadEnvelope,
  type EmailThreadPut,
  emailThreadEnvelopeSchema,
  emailThreadPutSchema,
  legacyThreadIdParam,
  serializeEmailThread,
  toDate,
} from "./schema";

const route = createAuthRoute({
  method: "put",
  path: "/mail/email-threads/{legacyThreadId}",
  operationId: "putEmailThread",
  tags: ["Mail"],
  summary: "Create or replace a stored email thread",
  bodyLimit: EMAIL_THREAD_BODY_LIMIT,
  exactNumbers: true,
  description:
    "Upserts the thread for (caller's company, `account_email`, legacy thread id) in one statement, so concurrent PUTs for one key leave one row. " +
    "The same legacy id under another mailbox is another thread. The first PUT inserts; later PUTs update that row: every field sent " +
    "replaces the stored value whole (arrays are never merged; `null` clears a nullable scalar), fields left out keep their stored value " +
    "(on insert: `participants` and `labels` default to `[]`, other scalars to null). `messages` is required and always replaced, " +
    "`message_count` is its length, `last_synced_at` defaults to the server time of this request, and the thread is un-deleted. " +
    "`account_email` must be a valid address and is stored lowercase. `messages`, `participants` and `labels` are stored and returned " +
    "exactly as sent, as JSON values (PostgreSQL jsonb), without per-message validation: every number keeps its exact value (integers " +
    "beyond 2^53 and decimals with any number of digits are not rounded), written in plain decimal (`1e3` comes back as `1000`, `1.50` " +
    "as `1.50`); object key order and whitespace are not kept, and of a repeated key the last value counts. Only what PostgreSQL cannot " +
    "store is refused with 400 naming the field: the NUL character (U+0000) or a lone surrogate escape (such as `\\ud800`) in any string " +
    `or key, JSON nested deeper than ${MAX_JSON_DEPTH} levels, a number with more than ${NUMERIC_MAX_INTEGER_DIGITS} digits before the ` +
    `decimal point or ${NUMERIC_MAX_SCALE} after (written out), a number sent with an exponent whose plain-decimal form has more than ` +
    `${NUMBER_MAX_EXPANDED_LENGTH} characters (\`1e99\` is accepted, \`1e100\` is not: send longer numbers written out), and numbers whose ` +
    "plain-decimal form would take the body over the size limit (field `(body)`). Timestamps are ISO 8601 date-times with an offset " +
    "(returned in UTC, millisecond precision). Response `{ email_thread }` with the thread's fields; the internal `deleted` flag is not returned " +
    `(it is always false after a PUT). The body may be up to ${EMAIL_THREAD_BODY_LIMIT} bytes (8 MiB); larger bodies get 413.`,
  request: {
    params: legacyThreadIdParam(),
    body: { required: true, content: { "application/json": { schema: emailThreadPutSchema() } } },
  },
  responses: {
    200: withEtag({
      description: "The stored thread (created or updated)",
      content: jsonContent(emailThreadEnvelopeSchema),
    }),
  },
});

/** Body → scalar columns; optional fields only when sent, so an update leaves unsent ones alone. */
function scalarColumns(body: EmailThreadPut) {
  const columns: Partial<typeof emailThreads.$inferInsert> = {
    mailThreadId: body.mail_thread_id,
    subject: body.subject,
    snippet: body.snippet,
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
    // The text the body guard parsed (Hono caches it). The JSON members are stored from this text,
    // not from `body`, whose numbers JSON.parse made doubles; validation above used `body`.
    const text = await c.req.text();
    const unstorable = unstorableNumbers(text, EMAIL_THREAD_BODY_LIMIT);
    if (unstorable) throw unstorableError(unstorable);

    // The text goes to PostgreSQL once, as jsonb (exact numerics); each member is read from it.
    const sent = c.get("db").$with("sent", { body: sql`body` }).as(sql`select ${text}::jsonb as body`);
    const member = (key: ExactJsonMember) => sql`(select body -> ${key}::text from ${sent})`;
    const stored = {
      ...scalarColumns(body),
      ...(Object.fromEntries(EXACT_JSON_MEMBERS.filter((k) => body[k] !== undefined).map((k) => [k, member(k)])) as Partial<
        Record<ExactJsonMember, SQL>
      >),
      messageCount: body.messages.length,
      lastSyncedAt: body.last_synced_at ? new Date(body.last_synced_at) : sql`now()`,
      deleted: false,
    };
    // One statement: the row lock of ON CONFLICT serialises concurrent PUTs, each applied whole; the
    // thread's webhook event is written with it. The update reads `excluded`, so the (possibly multi-MiB)
    // values are not repeated.
    return applyChange(c, async (change) => {
      const { db, companyId } = change;
      const thread = db.$with("thread").as(
        db
          .insert(emailThreads)
          .values({ ...stored, companyId, accountEmail: body.account_email, legacyThreadId })
          .onConflictDoUpdate({
            target: [emailThreads.companyId, emailThreads.accountEmail, emailThreads.legacyThreadId],
            set: {
              ...Object.fromEntries(Object.keys(stored).map((k) => [k, excluded(emailThreads[k as keyof typeof stored])])),
              updatedAt: sql`now()`,
            },
          })
          .returning(),
      );
      // The stored JSON members come back as text (exact numbers), as every read of a thread returns them.
      const [row] = await change.write(
        { with: [sent, thread], events: [eventOf(emailThreadEvents, "email_thread.upserted", { id: thread.id, from: thread })] },
        (q) =>
          q
            .select({
              thread: { ...thread._.selectedFields, ...exactJsonText(thread) },
              etag: emailThreadEtagOf(thread.id, thread.updatedAt),
            })
            .from(thread),
      );
      const object = stringifyWithRaw(serializeEmailThread(row.thread as EmailThreadRow));
      change.objects(emailThreadEvents, () => object);
      c.header("ETag", row.etag);
      return c.body(`{"email_thread":${object}}`, 200, { "content-type": "application/json" }) as unknown as Response &
        TypedResponse<EmailThreadEnvelope, 200, "json">;
    });
  });
