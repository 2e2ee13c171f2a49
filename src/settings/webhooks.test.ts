import { describe, expect, inject, it } from "vitest";
import { newCompany, sql } from "../../test/support/api";
import { signedIn } from "../../test/support/settings";
import { LOCAL_RECEIVER, newEndpoint, recordDelivery } from "../../test/support/webhooks";

/** `/settings/webhooks` over plain HTTP: the API's endpoint operations behind forms, CSRF, audit, tenancy. */
const origin = () => new URL(inject("apiUrl")).origin;

const endpointIds = (html: string) => [...html.matchAll(/data-endpoint-id="(\d+)"/g)].map((m) => Number(m[1]));

describe("/settings/webhooks", () => {
  it("adds an endpoint (secret shown once), edits, disables, enables, rotates, deletes, with audit entries", async () => {
    const co = await newCompany();
    const { client, user } = await signedIn(origin(), co.companyId, "developer");

    const list = await client.get("/settings/webhooks");
    expect(list.status).toBe(200);
    const added = await client.post(
      "/settings/webhooks",
      { url: LOCAL_RECEIVER, events: "order.created order.updated", description: "ERP" },
      { csrfFrom: list },
    );
    expect(added.status).toBe(201);
    const secret = added.testId("new-secret");
    expect(secret).toMatch(/^whsec_/);
    const [id] = endpointIds(added.html);
    // The API sees it, without its secret; the list page never shows the secret again.
    const api = await co.get(`/webhook-endpoints/${id}`);
    expect(api.body.webhook_endpoint).toMatchObject({
      url: LOCAL_RECEIVER,
      events: ["order.created", "order.updated"],
      description: "ERP",
    });
    const again = await client.get("/settings/webhooks");
    expect(again.html).not.toContain(secret);
    expect((await client.get(`/settings/webhooks/${id}`)).html).not.toContain(secret);

    // The API's URL rules and event names apply.
    const bad = await client.post(
      "/settings/webhooks",
      { url: "https://10.0.0.1/hooks", events: "nope.event", description: "" },
      { csrfFrom: again },
    );
    expect(bad.status).toBe(400);
    expect(bad.testId("error-url")).toMatch(/Invalid webhook URL/);
    expect(bad.testId("error-events")).toBeTruthy();

    const page = `/settings/webhooks/${id}`;
    const edited = await client.post(page, { url: "http://localhost:9/other", events: "*", description: "" }, { csrfFrom: page });
    expect(edited.status).toBe(200);
    expect((await co.get(`/webhook-endpoints/${id}`)).body.webhook_endpoint).toMatchObject({
      url: "http://localhost:9/other",
      events: ["*"],
      description: null,
    });

    const disabled = await client.post(`${page}/disable`, {}, { csrfFrom: page });
    expect(disabled.status).toBe(200);
    expect(disabled.testId("endpoint-status")).toMatch(/^disabled/);
    expect((await co.get(`/webhook-endpoints/${id}`)).body.webhook_endpoint.enabled).toBe(false);
    const enabled = await client.post(`${page}/enable`, {}, { csrfFrom: page });
    expect(enabled.testId("endpoint-status")).toBe("enabled");

    const rotated = await client.post(`${page}/rotate-secret`, {}, { csrfFrom: page });
    expect(rotated.status).toBe(201);
    const newSecret = rotated.testId("new-secret");
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    expect((await sql("select secret, previous_secret from webhook_endpoints where id = $1", [id]))[0]).toEqual({
      secret: newSecret,
      previous_secret: secret,
    });
    expect((await client.get(page)).html).not.toContain(newSecret);

    const deleted = await client.post(`${page}/delete`, {}, { csrfFrom: page });
    expect(deleted.status).toBe(200);
    expect(endpointIds(deleted.html)).not.toContain(id);
    expect((await co.get(`/webhook-endpoints/${id}`)).status).toBe(404);
    expect((await client.get(page)).status).toBe(404);

    const audit = await sql(
      "select action, actor_type, actor_id, target_id from audit_entries where company_id = $1 and action like 'webhook_%' order by id",
      [co.companyId],
    );
    expect(audit.map((a) => a.action)).toEqual([
      "webhook_endpoint.created",
      "webhook_endpoint.updated",
      "webhook_endpoint.disabled",
      "webhook_endpoint.enabled",
      "webhook_endpoint.secret_rotated",
      "webhook_endpoint.deleted",
    ]);
    expect(audit[0]).toMatchObject({ actor_type: "user", actor_id: String(user.id), target_id: String(id) });
  });

  it("lists an endpoint's recent deliveries and re-sends a failed one", async () => {
    const co = await newCompany();
    const { client } = await signedIn(origin(), co.companyId, "developer");
    const { webhook_endpoint: ep } = await newEndpoint(co);
    const failed = await recordDelivery(co, ep.id, { status: "failed", type: "order.updated", responseStatus: 503 });
    const page = await client.get(`/settings/webhooks/${ep.id}`);
    expect(page.html).toContain(`data-delivery-id="${failed.deliveryId}"`);
    expect(page.html).toContain(failed.eventId);

    const resent = await client.post(`/settings/webhooks/${ep.id}/deliveries/${failed.deliveryId}/resend`, {}, { csrfFrom: page });
    expect(resent.status).toBe(200);
    expect(resent.testId("notice-ok")).toMatch(/sent again/);
    const [row] = await sql<{ attempts: number }>("select attempts from webhook_deliveries where id = $1", [failed.deliveryId]);
    // Pending again with attempts back at 0 (the queue may already have tried it once).
    expect(row.attempts).toBeLessThanOrEqual(1);
    expect(
      (await sql("select action from audit_entries where company_id = $1 and action = 'webhook_delivery.resent'", [co.companyId])).length,
    ).toBe(1);
  });

  it("refuses a POST without or with a wrong _csrf", async () => {
    const co = await newCompany();
    const { client } = await signedIn(origin(), co.companyId, "developer");
    const { webhook_endpoint: ep } = await newEndpoint(co);
    for (const csrf of [false, "0".repeat(64)] as const) {
      const res = await client.post(`/settings/webhooks/${ep.id}/delete`, {}, { csrf });
      expect(res.status).toBe(403);
      const add = await client.post("/settings/webhooks", { url: LOCAL_RECEIVER, events: "*", description: "" }, { csrf });
      expect(add.status).toBe(403);
    }
    expect((await co.get(`/webhook-endpoints/${ep.id}`)).status).toBe(200);
    expect((await co.get("/webhook-endpoints")).body.data).toHaveLength(1);
  });

  it("two companies: another company's endpoint and deliveries answer like missing ones", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { client } = await signedIn(origin(), a.companyId, "developer");
    const { webhook_endpoint: theirs } = await newEndpoint(b);
    const delivery = await recordDelivery(b, theirs.id, { status: "failed" });
    const list = await client.get("/settings/webhooks");
    expect(endpointIds(list.html)).not.toContain(theirs.id);
    const missing = await client.get("/settings/webhooks/999999999");
    expect(missing.status).toBe(404);
    const page = await client.get(`/settings/webhooks/${theirs.id}`);
    expect(page.status).toBe(404);
    expect(page.html).toBe(missing.html);
    for (const action of ["", "/disable", "/enable", "/rotate-secret", "/delete", `/deliveries/${delivery.deliveryId}/resend`]) {
      const res = await client.post(
        `/settings/webhooks/${theirs.id}${action}`,
        { url: LOCAL_RECEIVER, events: "*", description: "" },
        { csrfFrom: list },
      );
      expect(res.status, action).toBe(404);
    }
    const [row] = await sql("select enabled, secret, url from webhook_endpoints where id = $1", [theirs.id]);
    expect(row).toMatchObject({ enabled: true, url: LOCAL_RECEIVER });
    expect((await b.get(`/webhook-endpoints/${theirs.id}`)).status).toBe(200);
  });
});
