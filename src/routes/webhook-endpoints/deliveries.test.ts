import { describe, expect, it } from "vitest";
import { asRequest, expectError, newCompany, sql } from "../../../test/support/api";
import { newEndpoint, recordDelivery } from "../../../test/support/webhooks";

describe("GET /webhook-endpoints/{id}/deliveries", () => {
  it("lists the endpoint's deliveries newest first, with cursors and the status filter", async () => {
    const a = await newCompany();
    const { webhook_endpoint: ep } = await newEndpoint(a);
    const { webhook_endpoint: other } = await newEndpoint(a);
    const made = [];
    for (const status of ["failed", "succeeded", "failed", "pending", "failed"] as const) {
      made.push({ status, ...(await recordDelivery(a, ep.id, { status, type: "order.updated", responseStatus: 503 })) });
    }
    await recordDelivery(a, other.id);

    const first = await a.get(`/webhook-endpoints/${ep.id}/deliveries?per_page=2`);
    expect(first.status).toBe(200);
    expect(first.body.pagination).toMatchObject({ page: 1, per_page: 2, total: 5, next_cursor: expect.any(String) });
    const newest = made[4];
    expect(first.body.data[0]).toEqual({
      id: newest.deliveryId,
      event_id: newest.eventId,
      event_type: "order.updated",
      status: "failed",
      attempts: 3,
      next_attempt_at: null,
      last_attempt_at: expect.any(String),
      last_response_status: 503,
      last_response_body: "upstream said no",
      last_error: "HTTP 500",
      created_at: expect.any(String),
      succeeded_at: null,
    });
    expect(newest.eventId).toMatch(/^evt_[0-9a-f]{32}$/);

    const ids: number[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const res = await a.get(`/webhook-endpoints/${ep.id}/deliveries?per_page=2${q}`);
      ids.push(...res.body.data.map((d: { id: number }) => d.id));
      cursor = res.body.pagination.next_cursor;
    } while (cursor);
    expect(ids).toEqual(made.map((d) => d.deliveryId).reverse());

    const failed = await a.get(`/webhook-endpoints/${ep.id}/deliveries?status=failed`);
    expect(failed.body.data.map((d: { id: number }) => d.id)).toEqual(
      made
        .filter((d) => d.status === "failed")
        .map((d) => d.deliveryId)
        .reverse(),
    );
    expect(failed.body.pagination.total).toBe(3);
    const pending = (await a.get(`/webhook-endpoints/${ep.id}/deliveries?status=pending`)).body.data;
    expect(pending).toEqual([expect.objectContaining({ id: made[3].deliveryId, status: "pending", next_attempt_at: expect.any(String) })]);
    const succeeded = (await a.get(`/webhook-endpoints/${ep.id}/deliveries?status=succeeded`)).body.data;
    expect(succeeded).toEqual([expect.objectContaining({ status: "succeeded", succeeded_at: expect.any(String) })]);

    // A cursor of one filter is refused by another.
    const pagedFailed = await a.get(`/webhook-endpoints/${ep.id}/deliveries?status=failed&per_page=1`);
    const err = expectError(
      await a.get(
        `/webhook-endpoints/${ep.id}/deliveries?status=pending&cursor=${encodeURIComponent(pagedFailed.body.pagination.next_cursor)}`,
      ),
      400,
      "invalid_request",
    );
    expect(err.details[0].field).toBe("cursor");
  });

  it("an endpoint without deliveries has an empty log; a bad status is a 400", async () => {
    const a = await newCompany();
    const { webhook_endpoint: ep } = await newEndpoint(a);
    expect((await a.get(`/webhook-endpoints/${ep.id}/deliveries`)).body).toEqual({
      data: [],
      pagination: { page: 1, per_page: 25, total: 0, next_cursor: null },
    });
    const err = expectError(await a.get(`/webhook-endpoints/${ep.id}/deliveries?status=lost`), 400, "invalid_request");
    expect(err.details[0].field).toBe("status");
  });
});

describe("POST /webhook-endpoints/{id}/deliveries/{delivery_id}/retry", () => {
  it.each(["failed", "succeeded"] as const)("re-sends a %s delivery: pending, due now, attempts from 0", async (status) => {
    const a = await newCompany();
    const { webhook_endpoint: ep } = await newEndpoint(a);
    const { deliveryId, eventId } = await recordDelivery(a, ep.id, { status, attempts: 7 });
    const res = await a.post(`/webhook-endpoints/${ep.id}/deliveries/${deliveryId}/retry`);
    expect(res.status).toBe(200);
    expect(res.body.webhook_delivery).toMatchObject({
      id: deliveryId,
      event_id: eventId,
      status: "pending",
      attempts: 0,
      succeeded_at: null,
      // The last answer stays until the next attempt replaces it.
      last_response_status: 500,
    });
    const due = new Date(res.body.webhook_delivery.next_attempt_at).getTime();
    expect(Math.abs(due - Date.now())).toBeLessThan(60_000);
    // Delivery may already be working on it; it stays pending until it succeeds or gives up.
    const [row] = await sql<{ status: string; succeeded_at: Date | null }>(
      "select status, succeeded_at from webhook_deliveries where id = $1",
      [deliveryId],
    );
    expect(row.succeeded_at).toBeNull();
    expect(["pending", "failed"]).toContain(row.status);
  });

  it("a pending delivery, or one of a disabled endpoint, is a 409 conflict and changes nothing", async () => {
    const a = await newCompany();
    const { webhook_endpoint: ep } = await newEndpoint(a);
    const { deliveryId: pending } = await recordDelivery(a, ep.id, { status: "pending", attempts: 2 });
    const before = await sql("select * from webhook_deliveries where id = $1", [pending]);
    const err = expectError(await a.post(`/webhook-endpoints/${ep.id}/deliveries/${pending}/retry`), 409, "conflict");
    expect(err.message).toMatch(/pending/);
    expect(await sql("select * from webhook_deliveries where id = $1", [pending])).toEqual(before);

    const { deliveryId: failed } = await recordDelivery(a, ep.id, { status: "failed" });
    await a.patch(`/webhook-endpoints/${ep.id}`, { enabled: false });
    expect(expectError(await a.post(`/webhook-endpoints/${ep.id}/deliveries/${failed}/retry`), 409, "conflict").message).toMatch(
      /disabled/,
    );
    expect((await sql("select status from webhook_deliveries where id = $1", [failed]))[0].status).toBe("failed");
  });

  it("a delivery of another endpoint of the same company is a 404 under this endpoint", async () => {
    const a = await newCompany();
    const { webhook_endpoint: one } = await newEndpoint(a);
    const { webhook_endpoint: two } = await newEndpoint(a);
    const { deliveryId } = await recordDelivery(a, two.id);
    const wrong = await a.post(`/webhook-endpoints/${one.id}/deliveries/${deliveryId}/retry`, undefined, asRequest("wrong-or-missing"));
    const missing = await a.post(`/webhook-endpoints/${one.id}/deliveries/999999999/retry`, undefined, asRequest("wrong-or-missing"));
    expectError(wrong, 404, "not_found");
    expect(wrong.body).toEqual(missing.body);
    expect((await sql("select status from webhook_deliveries where id = $1", [deliveryId]))[0].status).toBe("failed");
    expectError(await a.post(`/webhook-endpoints/${one.id}/deliveries/abc/retry`), 400, "invalid_request");
  });
});

describe("Idempotency-Key on rotate-secret and retry", () => {
  it("a repeated rotation with the same key answers the same secret and rotates once", async () => {
    const a = await newCompany();
    const { webhook_endpoint: ep, secret: first } = await newEndpoint(a);
    const headers = { "idempotency-key": "rotate-1" };
    const one = await a.post(`/webhook-endpoints/${ep.id}/rotate-secret`, undefined, { headers });
    const two = await a.post(`/webhook-endpoints/${ep.id}/rotate-secret`, undefined, { headers });
    expect(two.headers.get("idempotent-replayed")).toBe("true");
    expect(two.body).toEqual(one.body);
    const [row] = await sql("select secret, previous_secret from webhook_endpoints where id = $1", [ep.id]);
    expect(row).toEqual({ secret: one.body.secret, previous_secret: first });
  });

  it("a keyed retry resets the delivery once; a 409 is not stored", async () => {
    const a = await newCompany();
    const { webhook_endpoint: ep } = await newEndpoint(a);
    const { deliveryId } = await recordDelivery(a, ep.id, { status: "pending" });
    const path = `/webhook-endpoints/${ep.id}/deliveries/${deliveryId}/retry`;
    const headers = { "idempotency-key": "retry-1" };
    expectError(await a.post(path, undefined, { headers }), 409, "conflict");
    await sql("update webhook_deliveries set status = 'failed' where id = $1", [deliveryId]);
    const res = await a.post(path, undefined, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(res.body.webhook_delivery).toMatchObject({ id: deliveryId, status: "pending", attempts: 0 });
  });
});
