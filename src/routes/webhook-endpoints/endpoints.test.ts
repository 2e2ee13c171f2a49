import { describe, expect, it } from "vitest";
import { type ApiResponse, asRequest, call, db, expectError, newCompany, sql } from "../../../test/support/api";
import { LOCAL_RECEIVER, newEndpoint, recordDelivery } from "../../../test/support/webhooks";
import { createToken } from "../../../tools/ops/commands";

describe("GET /webhook-endpoints", () => {
  it("lists the company's endpoints in creation order with keyset cursors, never secrets", async () => {
    const a = await newCompany();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await newEndpoint(a, { description: `hook ${i}` })).webhook_endpoint.id);
    const seen: number[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const res: ApiResponse = await a.get(`/webhook-endpoints?per_page=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.pagination).toMatchObject({ page: ++page, per_page: 2, total: 5 });
      expect(JSON.stringify(res.body)).not.toContain("whsec_");
      seen.push(...res.body.data.map((e: { id: number }) => e.id));
      cursor = res.body.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(page).toBe(3);
  });

  it("an empty list for a company without endpoints", async () => {
    const a = await newCompany();
    const res = await a.get("/webhook-endpoints");
    expect(res.body).toEqual({ data: [], pagination: { page: 1, per_page: 25, total: 0, next_cursor: null } });
  });
});

describe("PATCH /webhook-endpoints/{id}", () => {
  it("changes only the fields sent and bumps updated_at", async () => {
    const a = await newCompany();
    const { webhook_endpoint: created } = await newEndpoint(a, { events: ["client.created"], description: "old" });
    const res = await a.patch(`/webhook-endpoints/${created.id}`, { url: "https://hooks.example.com/v2", events: ["order.deleted"] });
    expect(res.status).toBe(200);
    expect(res.body.webhook_endpoint).toMatchObject({
      id: created.id,
      url: "https://hooks.example.com/v2",
      events: ["order.deleted"],
      description: "old",
      enabled: true,
    });
    expect(new Date(res.body.webhook_endpoint.updated_at).getTime()).toBeGreaterThan(new Date(created.updated_at as string).getTime());
    expect((await a.patch(`/webhook-endpoints/${created.id}`, { description: null })).body.webhook_endpoint.description).toBeNull();
    expect((await a.get(`/webhook-endpoints/${created.id}`)).body.webhook_endpoint.url).toBe("https://hooks.example.com/v2");
  });

  it("disabling records the reason; re-enabling clears it and the failure streak", async () => {
    const a = await newCompany();
    const { webhook_endpoint: ep } = await newEndpoint(a);
    const off = (await a.patch(`/webhook-endpoints/${ep.id}`, { enabled: false })).body.webhook_endpoint;
    expect(off).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining("API"), disabled_at: expect.any(String) });
    // Disabling again keeps the first reason and time.
    expect((await a.patch(`/webhook-endpoints/${ep.id}`, { enabled: false })).body.webhook_endpoint).toMatchObject({
      disabled_reason: off.disabled_reason,
      disabled_at: off.disabled_at,
    });
    // As delivery leaves an endpoint it gave up on.
    await sql(
      `update webhook_endpoints set disabled_reason = '50 failures in a row since 2026-11-20', failure_streak = 50,
         failing_since = now() - interval '3 days' where id = $1`,
      [ep.id],
    );
    expect((await a.get(`/webhook-endpoints/${ep.id}`)).body.webhook_endpoint).toMatchObject({
      enabled: false,
      disabled_reason: "50 failures in a row since 2026-11-20",
      failure_streak: 50,
      failing_since: expect.any(String),
    });
    const on = (await a.patch(`/webhook-endpoints/${ep.id}`, { enabled: true })).body.webhook_endpoint;
    expect(on).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failure_streak: 0, failing_since: null });
    // Enabling an enabled endpoint leaves its failure streak alone (only a state change resets it).
    await sql("update webhook_endpoints set failure_streak = 3, failing_since = now() where id = $1", [ep.id]);
    expect((await a.patch(`/webhook-endpoints/${ep.id}`, { enabled: true })).body.webhook_endpoint.failure_streak).toBe(3);
  });

  it.each([
    [{}, "(body)"],
    [{ events: [] }, "events"],
    [{ events: ["order.created", "nope"] }, "events.1"],
    [{ url: "https://192.168.0.10/" }, "url"],
    [{ url: null }, "url"],
    [{ enabled: "no" }, "enabled"],
    [{ secret: "whsec_x" }, "secret"],
  ])("rejects %j naming %s, changing nothing", async (body, field) => {
    const a = await newCompany();
    const { webhook_endpoint: ep } = await newEndpoint(a, { events: ["client.created"] });
    const err = expectError(await a.patch(`/webhook-endpoints/${ep.id}`, body), 400, "invalid_request");
    expect(err.details.map((d: { field: string }) => d.field)).toContain(field);
    const [row] = await sql("select url, events, enabled from webhook_endpoints where id = $1", [ep.id]);
    expect(row).toEqual({ url: LOCAL_RECEIVER, events: ["client.created"], enabled: true });
  });
});

describe("DELETE /webhook-endpoints/{id}", () => {
  it("deletes the endpoint with its delivery log; a second DELETE is 404", async () => {
    const a = await newCompany();
    const { webhook_endpoint: ep } = await newEndpoint(a);
    const { deliveryId } = await recordDelivery(a, ep.id);
    const res = await a.del(`/webhook-endpoints/${ep.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true, id: ep.id });
    expect(await sql("select id from webhook_endpoints where id = $1", [ep.id])).toEqual([]);
    expect(await sql("select id from webhook_deliveries where id = $1", [deliveryId])).toEqual([]);
    expectError(await a.get(`/webhook-endpoints/${ep.id}`), 404, "not_found");
    expectError(await a.del(`/webhook-endpoints/${ep.id}`), 404, "not_found");
  });
});

describe("POST /webhook-endpoints/{id}/rotate-secret", () => {
  it("answers a new secret; the old one signs beside it for 24 hours (one statement)", async () => {
    const a = await newCompany();
    const { webhook_endpoint: ep, secret: first } = await newEndpoint(a);
    const res = await a.post(`/webhook-endpoints/${ep.id}/rotate-secret`);
    expect(res.status).toBe(200);
    const { secret, webhook_endpoint } = res.body;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secret).not.toBe(first);
    const expires = new Date(webhook_endpoint.previous_secret_expires_at).getTime();
    expect(Math.abs(expires - (Date.now() + 24 * 3600_000))).toBeLessThan(60_000);
    const [row] = await sql<{ secret: string; previous_secret: string; hours: number }>(
      `select secret, previous_secret,
         round(extract(epoch from previous_secret_expires_at - updated_at) / 3600)::int as hours
       from webhook_endpoints where id = $1`,
      [ep.id],
    );
    expect(row).toEqual({ secret, previous_secret: first, hours: 24 });
    expect(JSON.stringify((await a.get(`/webhook-endpoints/${ep.id}`)).body)).not.toContain("whsec_");

    // A second rotation retires the first secret at once: the one it replaced becomes the previous.
    const again = (await a.post(`/webhook-endpoints/${ep.id}/rotate-secret`)).body.secret;
    const [after] = await sql("select secret, previous_secret from webhook_endpoints where id = $1", [ep.id]);
    expect(after).toEqual({ secret: again, previous_secret: secret });
  });

  it("hides previous_secret_expires_at once the previous secret has expired", async () => {
    const a = await newCompany();
    const { webhook_endpoint: ep } = await newEndpoint(a);
    await a.post(`/webhook-endpoints/${ep.id}/rotate-secret`);
    await sql("update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = $1", [ep.id]);
    expect((await a.get(`/webhook-endpoints/${ep.id}`)).body.webhook_endpoint.previous_secret_expires_at).toBeNull();
  });
});

describe("webhook endpoints between companies and scopes", () => {
  it("company B cannot read, list, change, rotate, delete A's endpoints, nor list or retry A's deliveries: the missing-row answer", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { webhook_endpoint: ep, secret } = await newEndpoint(a, { description: "A only" });
    const { deliveryId } = await recordDelivery(a, ep.id, { status: "failed" });
    const missingId = 2147483001;
    // Both of a pair as one request id: an error body carries it, and everything else must be the same.
    const same = asRequest("foreign-or-missing");
    const pairs: [() => Promise<any>, () => Promise<any>][] = [
      [() => b.get(`/webhook-endpoints/${ep.id}`, same), () => b.get(`/webhook-endpoints/${missingId}`, same)],
      [
        () => b.patch(`/webhook-endpoints/${ep.id}`, { description: "B" }, same),
        () => b.patch(`/webhook-endpoints/${missingId}`, { description: "B" }, same),
      ],
      [
        () => b.patch(`/webhook-endpoints/${ep.id}`, { enabled: false }, same),
        () => b.patch(`/webhook-endpoints/${missingId}`, { enabled: false }, same),
      ],
      [
        () => b.post(`/webhook-endpoints/${ep.id}/rotate-secret`, undefined, same),
        () => b.post(`/webhook-endpoints/${missingId}/rotate-secret`, undefined, same),
      ],
      [() => b.del(`/webhook-endpoints/${ep.id}`, same), () => b.del(`/webhook-endpoints/${missingId}`, same)],
      [() => b.get(`/webhook-endpoints/${ep.id}/deliveries`, same), () => b.get(`/webhook-endpoints/${missingId}/deliveries`, same)],
      [
        () => b.post(`/webhook-endpoints/${ep.id}/deliveries/${deliveryId}/retry`, undefined, same),
        () => b.post(`/webhook-endpoints/${missingId}/deliveries/${deliveryId}/retry`, undefined, same),
      ],
    ];
    for (const [foreign, missing] of pairs) {
      const [f, m] = [await foreign(), await missing()];
      expectError(f, 404, "not_found");
      expect(f.body).toEqual(m.body);
    }
    // B's own endpoint id with A's delivery id is a 404 too.
    const { webhook_endpoint: bEp } = await newEndpoint(b);
    expectError(await b.post(`/webhook-endpoints/${bEp.id}/deliveries/${deliveryId}/retry`), 404, "not_found");
    expect((await b.get("/webhook-endpoints")).body.data.map((e: { id: number }) => e.id)).toEqual([bEp.id]);
    const [row] = await sql("select description, enabled, secret from webhook_endpoints where id = $1", [ep.id]);
    expect(row).toEqual({ description: "A only", enabled: true, secret });
    const [delivery] = await sql("select status from webhook_deliveries where id = $1", [deliveryId]);
    expect(delivery.status).toBe("failed");
  });

  it("a read token reads endpoints and deliveries but gets 403 on every write, changing nothing", async () => {
    const a = await newCompany();
    const { token: readToken } = await createToken(db(), { companyId: a.companyId, scope: "read" });
    const { webhook_endpoint: ep, secret } = await newEndpoint(a);
    const { deliveryId } = await recordDelivery(a, ep.id);
    const as = (method: string, path: string, body?: unknown) => call(method, path, { token: readToken, body });
    expect((await as("GET", "/webhook-endpoints")).status).toBe(200);
    expect((await as("GET", `/webhook-endpoints/${ep.id}`)).status).toBe(200);
    expect((await as("GET", `/webhook-endpoints/${ep.id}/deliveries`)).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", "/webhook-endpoints", { url: LOCAL_RECEIVER, events: ["*"] }],
      ["PATCH", `/webhook-endpoints/${ep.id}`, { enabled: false }],
      ["DELETE", `/webhook-endpoints/${ep.id}`],
      ["POST", `/webhook-endpoints/${ep.id}/rotate-secret`],
      ["POST", `/webhook-endpoints/${ep.id}/deliveries/${deliveryId}/retry`],
    ] as const) {
      expectError(await as(method, path, body), 403, "forbidden");
    }
    expect(await sql("select enabled, secret from webhook_endpoints where company_id = $1", [a.companyId])).toEqual([
      { enabled: true, secret },
    ]);
    expect((await sql("select status from webhook_deliveries where id = $1", [deliveryId]))[0].status).toBe("failed");
  });
});
