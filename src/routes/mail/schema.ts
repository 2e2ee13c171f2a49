import { z } from "@hono/zod-openapi";
import { RawJson } from "../../http/exact-json";
import { iso, schemaOnce, timestamp } from "../../http/openapi";
import { isoDateTime } from "../../platform/dates";
import type { EmailThreadRow, ExactJsonMember, ThreadContextRow } from "./queries";

/**
 * Largest accepted PUT /mail/email-threads body. A synced thread can hold hundreds of messages with
 * HTML bodies, so the generic 1 MiB guard is far too small; 8 MiB stays well inside a Worker's memory.
 */
export const EMAIL_THREAD_BODY_LIMIT = 8 * 1024 * 1024;

/** The mailbox provider's legacy thread id, from the path (URL-decoded). */
export const legacyThreadIdParam = schemaOnce(() =>
  z.object({
    legacyThreadId: z
      .string()
      .min(1)
      .max(255)
      .openapi({
        param: { name: "legacyThreadId", in: "path" },
        description: "The mailbox provider's legacy thread id",
        example: "18c2f1a9b7e4d305",
      }),
  }),
);

/** An account email: a valid address, compared and stored lowercase. */
export const accountEmail = () => z.email().max(320).toLowerCase().openapi({ example: "orders@printshop.example" });

/** ISO 8601 date-time with seconds and a `Z` or `±hh:mm` offset (real calendar dates only). */
const isoInput = () => isoDateTime().openapi({ format: "date-time", example: "2026-11-21T13:37:00Z" });

/** A validated ISO timestamp (or null / undefined, passed through) as a Date for a timestamptz column. */
export const toDate = (s: string | null | undefined) => (s == null ? s : new Date(s));

// ---------------------------------------------------------------------------------------------
// Thread context: read-only cache; JSON members are returned exactly as the writer stored them.

const storedJson = (description: string) => z.any().openapi({ description });

export const threadContextSchema = schemaOnce(() =>
  z
    .object({
      thread_id: z.string().nullable(),
      legacy_thread_id: z.string(),
      sender_email: z.string().nullable(),
      client_id: z.string().nullable(),
      client_data: storedJson("JSON object as cached (shape varies; may be null)"),
      clients_data: storedJson("JSON array as cached (shape varies; may be null)"),
      orders_data: storedJson("JSON array as cached (shape varies; may be null)"),
      selected_order_id: z.string().nullable(),
      participant_emails: storedJson("Array of strings as cached (may be null)"),
      participants_data: storedJson("JSON array as cached (shape varies; may be null)"),
      fetched_at: timestamp().nullable(),
      updated_at: timestamp().nullable(),
    })
    .openapi("MailThreadContext"),
);

const rawOrNull = (text: string | null) => (text === null ? null : new RawJson(text));

/** The thread-context object; its JSON members are embedded as stored (exact numbers), so send it with `jsonWithRaw`. */
export function serializeThreadContext(row: ThreadContextRow) {
  return {
    thread_id: row.threadId,
    legacy_thread_id: row.legacyThreadId,
    sender_email: row.senderEmail,
    client_id: row.clientId,
    client_data: rawOrNull(row.clientData),
    clients_data: rawOrNull(row.clientsData),
    orders_data: rawOrNull(row.ordersData),
    selected_order_id: row.selectedOrderId,
    participant_emails: rawOrNull(row.participantEmails),
    participants_data: rawOrNull(row.participantsData),
    fetched_at: iso(row.fetchedAt),
    updated_at: iso(row.updatedAt),
  };
}

/** An id the old system stored as text or as a number, kept as text. */
const idText = () =>
  z
    .union([z.string(), z.number().transform(String)])
    .nullable()
    .optional();

/** Cache rows as the admin import loads them: the thread-context fields; JSON members take any JSON. */
export const threadContextRecordSchema = schemaOnce(() =>
  z.strictObject({
    legacy_thread_id: z.string().min(1).max(255),
    thread_id: z.string().nullable().optional(),
    sender_email: z.string().nullable().optional(),
    client_id: idText(),
    client_data: z.json().optional(),
    clients_data: z.json().optional(),
    orders_data: z.json().optional(),
    selected_order_id: idText(),
    participant_emails: z.json().optional(),
    participants_data: z.json().optional(),
    fetched_at: isoInput().nullable().optional(),
    updated_at: isoInput().nullable().optional(),
  }),
);

// ---------------------------------------------------------------------------------------------
// Email threads

const nullableText = (max: number) => z.string().max(max).nullable().optional();
/** The most items an array in a body of EMAIL_THREAD_BODY_LIMIT bytes can hold (each takes at least 2 bytes): the limits this implies. */
const MAX_BODY_ITEMS = EMAIL_THREAD_BODY_LIMIT / 2;

export const emailThreadPutSchema = schemaOnce(() =>
  z
    .strictObject({
      account_email: accountEmail().openapi({ description: "The synced mailbox; stored lowercase" }),
      messages: z
        .array(z.any())
        .max(MAX_BODY_ITEMS)
        .openapi({
          description:
            "Required; the complete messages array (`[]` when empty). Stored and returned exactly as sent (a jsonb value: numbers keep every " +
            "digit, object key order is not kept), without per-message validation. " +
            "Suggested message: { id, internal_date, from, to[], cc[], subject, snippet, body_plain, body_html }.",
        }),
      participants: z.array(z.any()).max(MAX_BODY_ITEMS).optional().openapi({ description: "Default `[]` on insert" }),
      labels: z.array(z.any()).max(MAX_BODY_ITEMS).optional().openapi({ description: "Label ids or names; default `[]` on insert" }),
      subject: nullableText(EMAIL_THREAD_BODY_LIMIT),
      snippet: nullableText(EMAIL_THREAD_BODY_LIMIT),
      mail_thread_id: nullableText(255).openapi({ description: "Canonical thread id when different from the legacy id" }),
      first_message_at: isoInput().nullable().optional(),
      last_message_at: isoInput().nullable().optional(),
      mail_history_id: nullableText(255).openapi({ description: "For incremental sync" }),
      last_synced_at: isoInput().optional().openapi({ description: "Defaults to the server time of this request" }),
    })
    .openapi("EmailThreadPut"),
);

export type EmailThreadPut = z.infer<ReturnType<typeof emailThreadPutSchema>>;

export const emailThreadSchema = schemaOnce(() =>
  z
    .object({
      id: z.uuid(),
      account_email: z.string(),
      legacy_thread_id: z.string(),
      mail_thread_id: z.string().nullable(),
      subject: z.string().nullable(),
      snippet: z.string().nullable(),
      participants: z.array(z.any()),
      labels: z.array(z.any()),
      messages: z.array(z.any()),
      message_count: z.number().int().openapi({ description: "Length of `messages`" }),
      first_message_at: timestamp().nullable(),
      last_message_at: timestamp().nullable(),
      mail_history_id: z.string().nullable(),
      last_synced_at: timestamp(),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("EmailThread"),
);

export const emailThreadEnvelopeSchema = schemaOnce(() => z.object({ email_thread: emailThreadSchema() }).openapi("EmailThreadEnvelope"));

export type EmailThreadEnvelope = z.infer<ReturnType<typeof emailThreadEnvelopeSchema>>;

/**
 * The thread's public fields only: `deleted` is internal (a live thread is always `deleted: false`). The JSON
 * members stay PostgreSQL's text (RawJson), so their numbers reach the client exactly as stored.
 */
export function serializeEmailThread(
  row: EmailThreadRow,
): Omit<z.infer<ReturnType<typeof emailThreadSchema>>, ExactJsonMember> & Record<ExactJsonMember, RawJson> {
  return {
    id: row.id,
    account_email: row.accountEmail,
    legacy_thread_id: row.legacyThreadId,
    mail_thread_id: row.mailThreadId,
    subject: row.subject,
    snippet: row.snippet,
    participants: new RawJson(row.participants),
    labels: new RawJson(row.labels),
    messages: new RawJson(row.messages),
    message_count: row.messageCount,
    first_message_at: iso(row.firstMessageAt),
    last_message_at: iso(row.lastMessageAt),
    mail_history_id: row.mailHistoryId,
    last_synced_at: iso(row.lastSyncedAt)!,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}
