import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { identityId, ref } from "./columns";
import { companies } from "./companies";

/**
 * A company's webhook endpoint: where its change events are delivered, signed with `secret`
 * (Standard Webhooks, `whsec_` + base64). After a rotation the previous secret keeps signing beside
 * the new one until `previous_secret_expires_at`. `events` holds event types or `*`.
 * A long failure streak disables the endpoint with the reason in `disabled_reason`.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: identityId(),
    companyId: ref("company_id", () => companies.id),
    url: text("url").notNull(),
    description: text("description"),
    events: text("events").array().notNull(),
    enabled: boolean("enabled").notNull().default(true),
    disabledReason: text("disabled_reason"),
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true }),
    /** Consecutive failed attempts (any delivery) since the last success, and when the streak began. */
    failureStreak: integer("failure_streak").notNull().default(0),
    failingSince: timestamp("failing_since", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("webhook_endpoints_company_idx").on(t.companyId, t.id)],
);

/**
 * One change event, written in the same statement as the change it describes. `payload` is the
 * delivered body `{ id, type, created_at, data: { object, previous_attributes? } }`, filled once (after commit from the
 * response the API gave, or by delivery from the current state when that step was lost) and then
 * never changed, so every attempt and every endpoint gets the same bytes.
 */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** The public id (`evt_…`), sent as `webhook-id`: unique and stable across retries. */
    eventId: text("event_id").notNull().unique().default(sql`('evt_' || replace(gen_random_uuid()::text, '-', ''))`),
    companyId: ref("company_id", () => companies.id),
    type: text("type").notNull(),
    /** 'client' | 'order' | 'email_thread', and the resource's id as text (thread ids are uuids). */
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    payload: jsonb("payload"),
    /** What the change replaced (`{ "status_id": 3 }`), written with the event; the payload's `data.previous_attributes`. */
    previousAttributes: jsonb("previous_attributes"),
    /**
     * Who caused the event (the payload's `actor`): 'token' | 'oauth_grant' | 'user' | 'system', and its id as
     * text (null for system); null on events written before actors were recorded.
     */
    actorType: text("actor_type"),
    actorId: text("actor_id"),
    /** The request that made the change (its `X-Request-Id`); null for the cron's and the queue consumers' events. */
    requestId: text("request_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("webhook_events_company_idx").on(t.companyId, t.id),
    // The events feed's filters (GET /events), newest first within each.
    index("webhook_events_company_type_idx").on(t.companyId, t.type, t.id),
    index("webhook_events_company_resource_idx").on(t.companyId, t.resourceId, t.id),
    index("webhook_events_company_actor_idx").on(t.companyId, t.actorType, t.actorId, t.id),
    index("webhook_events_company_request_idx").on(t.companyId, t.requestId, t.id),
    // Events whose payload is still to be filled: the cron pass renders those whose after-commit step was lost.
    index("webhook_events_unfilled_idx").on(t.id).where(sql`${t.payload} is null`),
    // Retention: the cron pass drops the oldest events first.
    index("webhook_events_created_idx").on(t.createdAt),
  ],
);

/**
 * One event for one endpoint (fanned out in the event's statement to the endpoints subscribed then).
 * status: 'pending' (waiting or retrying) → 'succeeded' | 'failed' (gave up). A pending delivery is
 * attempted only after every earlier delivery of the same resource to the same endpoint has finished
 * (per-resource order); `claimed_until` keeps two consumers from sending it at once.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    companyId: ref("company_id", () => companies.id),
    endpointId: integer("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: bigint("event_id", { mode: "number" })
      .notNull()
      .references(() => webhookEvents.id),
    /** Copied from the event: the ordering key. */
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    claimedUntil: timestamp("claimed_until", { withTimezone: true }),
    enqueuedAt: timestamp("enqueued_at", { withTimezone: true }),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    lastResponseStatus: integer("last_response_status"),
    /** The first bytes of the last response body (capped), or the network error. */
    lastResponseBody: text("last_response_body"),
    lastError: text("last_error"),
    succeededAt: timestamp("succeeded_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.id),
    index("webhook_deliveries_order_idx").on(t.endpointId, t.resourceType, t.resourceId, t.id).where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_event_idx").on(t.eventId),
  ],
);
