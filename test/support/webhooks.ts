import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { EMAIL_THREAD_BODY_LIMIT } from "../../src/routes/mail/schema";
import { sql, type TestCompany } from "./api";

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/**
 * A webhook endpoint row for a company, written with SQL (tests arrange endpoints directly; the
 * endpoints API has its own tests).
 */
export async function createWebhookEndpoint(
  companyId: number,
  opts: { url: string; events?: string[]; secret?: string; previousSecret?: string; previousSecretExpiresInSeconds?: number },
) {
  const secret = opts.secret ?? newWebhookSecret();
  const [row] = await sql<{ id: number }>(
    `insert into webhook_endpoints (company_id, url, events, secret, previous_secret, previous_secret_expires_at)
     values ($1, $2, $3, $4, $5, case when $6::int is null then null else now() + make_interval(secs => $6::int) end) returning id`,
    [companyId, opts.url, opts.events ?? ["*"], secret, opts.previousSecret ?? null, opts.previousSecretExpiresInSeconds ?? null],
  );
  return { id: row.id, secret };
}

export interface DeliveryRow {
  id: string;
  endpoint_id: number;
  status: string;
  attempts: number;
  last_response_status: number | null;
  last_response_body: string | null;
  last_error: string | null;
  type: string;
  event_id: string;
  resource_id: string;
}

/** An endpoint's deliveries with their event's type and public id, oldest first. */
export const webhookDeliveries = (endpointId: number) =>
  sql<DeliveryRow>(
    `select d.*, e.type, e.event_id from webhook_deliveries d join webhook_events e on e.id = d.event_id
     where d.endpoint_id = $1 order by d.id`,
    [endpointId],
  );

export interface EventRow {
  id: string;
  event_id: string;
  type: string;
  resource_type: string;
  resource_id: string;
  payload: any;
}

/** A company's webhook events, oldest first. */
export const webhookEvents = (companyId: number) =>
  sql<EventRow>("select * from webhook_events where company_id = $1 order by id", [companyId]);

/** A receiver address the local stack accepts (nothing needs to listen for these tests). */
export const LOCAL_RECEIVER = "http://127.0.0.1:9/hooks";

/** Creates an endpoint through the API; returns the endpoint and its secret. */
export async function newEndpoint(co: TestCompany, body: Record<string, unknown> = {}) {
  const res = await co.post("/webhook-endpoints", { url: LOCAL_RECEIVER, events: ["*"], ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { webhook_endpoint: { id: number; [k: string]: unknown }; secret: string };
}

/**
 * Records an event and its delivery to one endpoint directly in the tables (what event emission writes),
 * in the given state; returns the delivery id and the event's public id.
 */
export async function recordDelivery(
  co: TestCompany,
  endpointId: number,
  state: {
    status?: "pending" | "succeeded" | "failed";
    attempts?: number;
    type?: string;
    responseStatus?: number;
    error?: string;
    /** How long ago the event was written and the delivery last changed (an interval, e.g. '31 days'). */
    age?: string;
  } = {},
) {
  const [event] = await sql<{ id: string; event_id: string }>(
    `insert into webhook_events (company_id, type, resource_type, resource_id, created_at)
     values ($1, $2, 'client', '1', now() - $3::interval) returning id, event_id`,
    [co.companyId, state.type ?? "client.updated", state.age ?? "0 seconds"],
  );
  // Its payload as a change fills it (a client this company does not have: no object; the system's, outside a request).
  await sql(
    `update webhook_events set actor_type = 'system', payload = jsonb_build_object('id', event_id, 'type', type,
       'created_at', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       'actor', jsonb_build_object('type', 'system', 'id', null), 'request_id', null,
       'data', jsonb_build_object('object', null) || case when type like '%.updated' then '{"previous_attributes": {}}'::jsonb else '{}' end)
     where id = $1`,
    [event.id],
  );
  const status = state.status ?? "failed";
  const [delivery] = await sql<{ id: string }>(
    `insert into webhook_deliveries (company_id, endpoint_id, event_id, resource_type, resource_id, status, attempts,
       last_attempt_at, last_response_status, last_response_body, last_error, succeeded_at, next_attempt_at, created_at, updated_at)
     values ($1, $2, $3, 'client', '1', $4, $5, now(), $6, 'upstream said no', $7,
       case when $4 = 'succeeded' then now() end, now() + interval '1 hour', now() - $8::interval, now() - $8::interval) returning id`,
    [
      co.companyId,
      endpointId,
      event.id,
      status,
      state.attempts ?? 3,
      state.responseStatus ?? 500,
      state.error ?? "HTTP 500",
      state.age ?? "0 seconds",
    ],
  );
  return { deliveryId: Number(delivery.id), eventPk: Number(event.id), eventId: event.event_id };
}

/**
 * Grows a stored e-mail thread to the largest the API stores (an 8 MiB PUT; written in SQL, which a loaded
 * machine does faster than the PUT) and adds an `email_thread.upserted` event for it whose payload the
 * after-commit step lost (six minutes old, no payload): the feed and the cron pass must render it.
 */
export async function largestThreadWithLostEvent(companyId: number, threadId: number) {
  await sql(
    `update email_threads set messages = jsonb_build_array(jsonb_build_object('id', 'm1', 'body_html', repeat('x', $2::int)))
     where id = $1`,
    [threadId, EMAIL_THREAD_BODY_LIMIT - 1024],
  );
  const [lost] = await sql<{ id: string; event_id: string }>(
    `insert into webhook_events (company_id, type, resource_type, resource_id, created_at)
     values ($1, 'email_thread.upserted', 'email_thread', $2, now() - interval '6 minutes') returning id, event_id`,
    [companyId, threadId],
  );
  return lost;
}
