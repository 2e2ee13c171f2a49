import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { ref } from "./columns";
import { companies } from "./companies";

/** Read-only cache written by the mail add-on's backend: exactly the thread-context fields of the API contract. */
export const mailThreadContexts = pgTable("mail_thread_contexts", {
  legacyThreadId: text("legacy_thread_id").primaryKey(),
  threadId: text("thread_id"),
  senderEmail: text("sender_email"),
  clientId: text("client_id"),
  clientData: jsonb("client_data"),
  clientsData: jsonb("clients_data"),
  ordersData: jsonb("orders_data"),
  selectedOrderId: text("selected_order_id"),
  participantEmails: jsonb("participant_emails"),
  participantsData: jsonb("participants_data"),
  fetchedAt: timestamp("fetched_at", { withTimezone: true }),
  updatedAt: timestamp("updated_at", { withTimezone: true }),
});

export const emailThreads = pgTable(
  "email_threads",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    companyId: ref("company_id", () => companies.id),
    accountEmail: text("account_email").notNull(),
    legacyThreadId: text("legacy_thread_id").notNull(),
    mailThreadId: text("mail_thread_id"),
    subject: text("subject"),
    snippet: text("snippet"),
    participants: jsonb("participants").notNull().default([]),
    labels: jsonb("labels").notNull().default([]),
    messages: jsonb("messages").notNull().default([]),
    messageCount: integer("message_count").notNull().default(0),
    firstMessageAt: timestamp("first_message_at", { withTimezone: true }),
    lastMessageAt: timestamp("last_message_at", { withTimezone: true }),
    mailHistoryId: text("mail_history_id"),
    lastSyncedAt: timestamp("last_synced_at", { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    deleted: boolean("deleted").notNull().default(false),
  },
  (t) => [
    uniqueIndex("email_threads_key_uq").on(t.companyId, t.accountEmail, t.legacyThreadId),
    index("email_threads_company_idx").on(t.companyId).where(sql`not ${t.deleted}`),
  ],
);
