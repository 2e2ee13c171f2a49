import { getTableColumns, sql } from "drizzle-orm";
import { mailThreadContexts } from "../../../src/db/schema";
import { excluded } from "../../../src/routes/mail/queries";
import { threadContextRecordSchema, toDate } from "../../../src/routes/mail/schema";
import { ImportError, parseRecord, refSchema, resolveRef, type SectionImporter } from "./kit";

const ContextImportSchema = threadContextRecordSchema()
  .extend({
    client_ref: refSchema.optional().describe("A client `ref` from this file; stored as `client_id`"),
  })
  .refine((r) => r.client_ref === undefined || r.client_id == null, {
    message: "Send client_ref or client_id, not both",
    path: ["client_ref"],
  });

/**
 * `mail_thread_contexts: [{ legacy_thread_id, ...thread-context fields, client_ref? }]`. The cache is shared (not
 * company-scoped): a record replaces any cached row with its legacy id; omitted timestamps
 * default to now, other omitted fields to null.
 */
export const importMailThreadContexts: SectionImporter = async (ctx, records) => {
  const parsed = records.map((r, i) => parseRecord(ContextImportSchema, r, `mail_thread_contexts[${i}]`));
  if (!parsed.length) return;
  const seen = new Set<string>();
  parsed.forEach((p, i) => {
    if (seen.has(p.legacy_thread_id))
      throw new ImportError(`mail_thread_contexts[${i}]: duplicate legacy_thread_id "${p.legacy_thread_id}"`);
    seen.add(p.legacy_thread_id);
  });
  const rows = parsed.map((p, i) => ({
    legacyThreadId: p.legacy_thread_id,
    threadId: p.thread_id ?? null,
    senderEmail: p.sender_email ?? null,
    clientId:
      p.client_ref !== undefined
        ? String(resolveRef(ctx, p.client_ref, undefined, `mail_thread_contexts[${i}].client_ref`))
        : (p.client_id ?? null),
    clientData: p.client_data ?? null,
    clientsData: p.clients_data ?? null,
    ordersData: p.orders_data ?? null,
    selectedOrderId: p.selected_order_id ?? null,
    participantEmails: p.participant_emails ?? null,
    participantsData: p.participants_data ?? null,
    fetchedAt: p.fetched_at === undefined ? sql`now()` : toDate(p.fetched_at),
    updatedAt: p.updated_at === undefined ? sql`now()` : toDate(p.updated_at),
  }));
  await ctx.tx
    .insert(mailThreadContexts)
    .values(rows)
    .onConflictDoUpdate({
      target: mailThreadContexts.legacyThreadId,
      set: Object.fromEntries(
        Object.entries(getTableColumns(mailThreadContexts))
          .filter(([key]) => key !== "legacyThreadId")
          .map(([key, column]) => [key, excluded(column)]),
      ),
    });
};
