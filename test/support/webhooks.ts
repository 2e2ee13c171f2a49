import { randomBytes } from "node:crypto";
import { sql } from "./api";

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
