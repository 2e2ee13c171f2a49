import { expect } from "vitest";
import { sql, type TestCompany } from "./api";

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
  state: { status?: "pending" | "succeeded" | "failed"; attempts?: number; type?: string; responseStatus?: number; error?: string } = {},
) {
  const [event] = await sql<{ id: string; event_id: string }>(
    `insert into webhook_events (company_id, type, resource_type, resource_id, payload)
     values ($1, $2, 'client', '1', '{}'::jsonb) returning id, event_id`,
    [co.companyId, state.type ?? "client.updated"],
  );
  const status = state.status ?? "failed";
  const [delivery] = await sql<{ id: string }>(
    `insert into webhook_deliveries (company_id, endpoint_id, event_id, resource_type, resource_id, status, attempts,
       last_attempt_at, last_response_status, last_response_body, last_error, succeeded_at, next_attempt_at)
     values ($1, $2, $3, 'client', '1', $4, $5, now(), $6, 'upstream said no', $7,
       case when $4 = 'succeeded' then now() end, now() + interval '1 hour') returning id`,
    [co.companyId, endpointId, event.id, status, state.attempts ?? 3, state.responseStatus ?? 500, state.error ?? "HTTP 500"],
  );
  return { deliveryId: Number(delivery.id), eventId: event.event_id };
}
