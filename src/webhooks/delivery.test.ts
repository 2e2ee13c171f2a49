import path from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../../test/fakes/webhook-receiver";
import { DEAD_LETTER_WITHIN_MS, expectError, newCompany, sql, type TestCompany, waitFor } from "../../test/support/api";
import { scanLog } from "../../test/support/log-scan";
import {
  createWebhookEndpoint,
  largestThreadWithLostEvent,
  newWebhookSecret,
  recordDelivery,
  webhookDeliveries,
  webhookEvents,
} from "../../test/support/webhooks";
import { type RunningWorker, startWorker } from "../../test/support/worker";
import { EMAIL_THREAD_BODY_LIMIT } from "../routes/mail/schema";
import { EVENT_OBJECT_MAX_BYTES } from "./event-data";

/**
 * Webhook delivery through the real queue consumer in workerd (Miniflare runs the webhook queue, its
 * dead-letter queue and the cron trigger from wrangler.toml) to a local receiver. Two Workers of the
 * real bundle: `fast` retries at once (4 attempts, 1 s timeout, never disables), `strict` disables an
 * endpoint after 3 failed attempts.
 */

interface TestWorker {
  worker: RunningWorker;
  api: string;
  logFile: string;
}

let receiver: WebhookReceiver;
let fast: TestWorker;
let strict: TestWorker;

async function start(name: string, vars: Record<string, string>): Promise<TestWorker> {
  const logFile = path.join(inject("tmpDir"), `webhooks-${name}.log`);
  const worker = await startWorker({ script: inject("workerScript"), bindings: { ...inject("workerBindings"), ...vars }, logFile });
  return { worker, api: `${worker.url}/api/v1`, logFile };
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  [fast, strict] = await Promise.all([
    start("fast", { WEBHOOK_RETRY_SCHEDULE: "0,0,0", WEBHOOK_TIMEOUT_MS: "1000", WEBHOOK_DISABLE_MIN_FAILURES: "10000" }),
    start("strict", { WEBHOOK_RETRY_SCHEDULE: "0,0,0,0,0", WEBHOOK_DISABLE_AFTER_HOURS: "0", WEBHOOK_DISABLE_MIN_FAILURES: "3" }),
  ]);
});

afterAll(async () => {
  await Promise.all([fast?.worker.dispose(), strict?.worker.dispose()]);
  await receiver?.stop();
});

let pathSeq = 0;
/** A fresh receiver path (one per endpoint). */
const hookPath = (name: string) => `${name}-${process.pid}-${++pathSeq}`;
/** The company's requests, sent to `target`. */
const on = (target: TestWorker) => ({ baseUrl: target.api });

/** Waits until the receiver has `n` requests on `path` and returns them. */
const waitReceived = (p: string, n: number) =>
  waitFor(
    `${n} webhook requests on ${p}`,
    () => receiver.received(p),
    (rs) => rs.length >= n,
  );
const waitDeliveries = (endpointId: number, done: (rows: Awaited<ReturnType<typeof webhookDeliveries>>) => boolean, withinMs?: number) =>
  waitFor(`deliveries of endpoint ${endpointId}`, () => webhookDeliveries(endpointId), done, withinMs);
const allSettled = (n: number) => (rows: Awaited<ReturnType<typeof webhookDeliveries>>) =>
  rows.length === n && rows.every((r) => r.status !== "pending");

async function companyWithEndpoint(events = ["*"], extra: { previousSecret?: string; previousSecretExpiresInSeconds?: number } = {}) {
  const company = await newCompany();
  const p = hookPath("hook");
  const endpoint = await createWebhookEndpoint(company.companyId, { url: receiver.url(p), events, ...extra });
  return { company, path: p, endpoint };
}

const newClient = (company: TestCompany, target: TestWorker, name = `Client ${Date.now()}-${Math.random()}`) =>
  company.post("/clients", { company_name: name, email: "maya@example.com" }, on(target));

describe("webhook events: written with the change", () => {
  it("writes exactly one event per successful write, with the object the response carried, and none for a failed write", async () => {
    const { company, endpoint, path: p } = await companyWithEndpoint();
    const created = await newClient(company, fast);
    expect(created.status).toBe(200);
    const clientId = created.body.client.id;
    const updated = await company.patch(`/clients/${clientId}`, { phone: "555-0100" }, on(fast));
    expect(updated.status).toBe(200);
    // Failed writes: a stale If-Match (412), an unknown client on an order (400).
    expectError(
      await company.patch(`/clients/${clientId}`, { phone: "1" }, { ...on(fast), headers: { "if-match": '"stale"' } }),
      412,
      "invalid_request",
    );
    expectError(await company.post("/orders", { client_id: 999_999_999, title: "Nope" }, on(fast)), 400, "invalid_request");
    const order = await company.post("/orders", { client_id: clientId, title: "Team tees" }, on(fast));
    expect(order.status).toBe(200);
    const orderId = order.body.project.id;
    const patched = await company.patch(`/orders/${orderId}`, { title: "Team tees v2" }, on(fast));
    const item = await company.post(`/orders/${orderId}/items`, { title: "Tee", unit_price: "12.50", quantity: "2" }, on(fast));
    expect(item.status).toBe(200);
    const thread = await company.put("/mail/email-threads/legacy-1", undefined, {
      ...on(fast),
      // A number beyond double precision: stored and delivered exactly as sent.
      rawBody: '{"account_email":"Sales@Example.com","subject":"Hi","messages":[{"id":1,"amount":12345678901234567890.5}]}',
      headers: { "content-type": "application/json" },
    });
    expect(thread.status).toBe(200);
    const deleted = await company.del(`/orders/${orderId}`, on(fast));
    const clientDeleted = await company.patch(`/clients/${clientId}`, { deleted: true }, on(fast));
    expect(clientDeleted.status).toBe(200);

    const events = await waitFor(
      "payloads filled after commit",
      () => webhookEvents(company.companyId),
      (es) => es.length === 8 && es.every((e) => e.payload !== null),
    );
    expect(events.map((e) => e.type)).toEqual([
      "client.created",
      "client.updated",
      "order.created",
      "order.updated",
      "order.updated",
      "email_thread.upserted",
      "order.deleted",
      "client.deleted",
    ]);
    const byType = (t: string) => events.filter((e) => e.type === t).map((e) => e.payload.data.object);
    expect(byType("client.created")).toEqual([created.body.client]);
    expect(byType("client.updated")).toEqual([updated.body.client]);
    expect(byType("client.deleted")).toEqual([clientDeleted.body.client]);
    expect(byType("order.created")).toEqual([order.body]);
    expect(byType("order.updated")[0]).toEqual(patched.body);
    // An order-contents write: the order as it is after it (its invoice as the item's response shows it).
    expect(byType("order.updated")[1].invoice).toEqual(item.body.invoice);
    // A deleted order: the order as the delete left it.
    expect(deleted.body).toEqual({ deleted: true, id: orderId });
    const [gone] = byType("order.deleted");
    expect(gone.project).toMatchObject({ id: orderId, title: "Team tees v2" });
    expect(gone.invoice).toMatchObject({ id: order.body.invoice.id, totals: item.body.invoice.totals });
    expect(byType("email_thread.upserted")).toEqual([thread.body.email_thread]);
    for (const e of events) {
      expect(e.payload).toMatchObject({ id: e.event_id, type: e.type });
      expect(e.event_id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(e.payload.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    // Every event went to the endpoint (subscribed to "*") once, each resource's in the order of its writes.
    const rows = await waitDeliveries(endpoint.id, allSettled(8));
    expect(rows.map((r) => [r.status, r.attempts, r.last_response_status])).toEqual(Array(8).fill(["succeeded", 1, 200]));
    const received = receiver.received(p).map((r) => r.json);
    expect(received.map((r) => r.id).sort()).toEqual(events.map((e) => e.event_id).sort());
    const ofResource = (prefix: string) => received.filter((r) => r.type.startsWith(prefix)).map((r) => r.type);
    expect(ofResource("client.")).toEqual(["client.created", "client.updated", "client.deleted"]);
    expect(ofResource("order.")).toEqual(["order.created", "order.updated", "order.updated", "order.deleted"]);
    const [threadRequest] = receiver.received(p).filter((r) => r.json.type === "email_thread.upserted");
    expect(threadRequest.body).toContain('"amount": 12345678901234567890.5');
  });

  it("writes one event for a keyed create, none for its replay, and only subscribed types reach an endpoint", async () => {
    const { company, endpoint, path: p } = await companyWithEndpoint(["client.updated"]);
    const headers = { "idempotency-key": `key-${Math.random()}` };
    const first = await company.post("/clients", { company_name: "Keyed" }, { ...on(fast), headers });
    const replay = await company.post("/clients", { company_name: "Keyed" }, { ...on(fast), headers });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    await company.patch(`/clients/${first.body.client.id}`, { phone: "1" }, on(fast));
    const events = await webhookEvents(company.companyId);
    expect(events.map((e) => e.type)).toEqual(["client.created", "client.updated"]);
    // Only client.updated is subscribed: client.created has no delivery, yet its payload is stored (the events feed shows it).
    const [delivered] = await waitReceived(p, 1);
    expect(delivered.json.type).toBe("client.updated");
    expect((await webhookDeliveries(endpoint.id)).map((d) => d.type)).toEqual(["client.updated"]);
    const [created] = await waitFor(
      "client.created's payload, filled after its commit",
      () => webhookEvents(company.companyId),
      (es) => es[0]?.payload !== null,
    );
    expect(created.payload).toMatchObject({ id: created.event_id, type: "client.created", data: { object: first.body.client } });
  });
});

describe("webhook delivery: signatures", () => {
  it("signs per Standard Webhooks: the standardwebhooks library verifies real deliveries and rejects a tampered body", async () => {
    const { company, path: p, endpoint } = await companyWithEndpoint();
    await newClient(company, fast);
    const [req] = await waitReceived(p, 1);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["webhook-id"]).toBe(req.json.id);
    expect(Number(req.headers["webhook-timestamp"])).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(req.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(endpoint.secret).verify(req.body, req.headers);
    expect(verified).toEqual(req.json);
    const tampered = req.body.replace('"maya@example.com"', '"eve@example.com"');
    expect(tampered).not.toBe(req.body);
    expect(() => new Webhook(endpoint.secret).verify(tampered, req.headers)).toThrow(/signature/i);
    expect(() => new Webhook(newWebhookSecret()).verify(req.body, req.headers)).toThrow(/signature/i);
  });

  it("signs with the previous secret too while it is unexpired (rotation), then with the new one only", async () => {
    const old = newWebhookSecret();
    const { company, path: p, endpoint } = await companyWithEndpoint(["*"], { previousSecret: old, previousSecretExpiresInSeconds: 3600 });
    await newClient(company, fast);
    const [req] = await waitReceived(p, 1);
    expect(req.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(endpoint.secret).verify(req.body, req.headers)).toEqual(req.json);
    expect(new Webhook(old).verify(req.body, req.headers)).toEqual(req.json);
    // The overlap ends: the old secret no longer verifies.
    await sql("update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = $1", [endpoint.id]);
    await newClient(company, fast);
    const [, second] = await waitReceived(p, 2);
    expect(second.headers["webhook-signature"].split(" ")).toHaveLength(1);
    expect(new Webhook(endpoint.secret).verify(second.body, second.headers)).toEqual(second.json);
    expect(() => new Webhook(old).verify(second.body, second.headers)).toThrow(/signature/i);
  });
});

describe("webhook delivery: large objects", () => {
  it("a large thread's delivery carries a reference (signed as any payload), and its URL answers the thread; so does a lost payload's render of an 8 MiB thread", async () => {
    const { company, path: p, endpoint } = await companyWithEndpoint(["email_thread.upserted"]);
    const body = { account_email: "big@shop.example", messages: [{ id: "m1", body_html: "x".repeat(2 * EVENT_OBJECT_MAX_BYTES) }] };
    const put = await company.put("/mail/email-threads/big-1", body, on(fast));
    expect(put.status).toBe(200);
    const [req] = await waitReceived(p, 1);
    expect(Buffer.byteLength(req.body)).toBeLessThan(EVENT_OBJECT_MAX_BYTES);
    expect(new Webhook(endpoint.secret).verify(req.body, req.headers)).toEqual(req.json);
    const reference = {
      resource: "email_thread",
      id: put.body.email_thread.id,
      url: "/api/v1/mail/email-threads/big-1?account_email=big%40shop.example",
      size_bytes: expect.any(Number),
    };
    expect(req.json).toMatchObject({ type: "email_thread.upserted", data: { object_reference: reference } });
    expect(req.json.data.object).toBeUndefined();
    const fetched = await fetch(`${new URL(fast.api).origin}${req.json.data.object_reference.url}`, {
      headers: { authorization: `Bearer ${company.token}` },
    });
    expect(fetched.status).toBe(200);
    expect(((await fetched.json()) as any).email_thread).toEqual(put.body.email_thread);

    // The largest thread the API stores (an 8 MiB PUT, written here in SQL), with an event whose payload
    // the after-commit step lost: the cron pass renders it, as the same reference.
    const lost = await largestThreadWithLostEvent(company.companyId, put.body.email_thread.id);
    await sql(
      `insert into webhook_deliveries (company_id, endpoint_id, event_id, resource_type, resource_id, created_at)
       values ($1, $2, $3, 'email_thread', $4, now() - interval '6 minutes')`,
      [company.companyId, endpoint.id, lost.id, put.body.email_thread.id],
    );
    await fast.worker.scheduled();
    await waitDeliveries(endpoint.id, allSettled(2));
    const [recovered] = receiver.received(p).filter((r) => r.json.id === lost.event_id);
    expect(recovered.json).toMatchObject({ type: "email_thread.upserted", data: { object_reference: reference } });
    expect(recovered.json.data.object_reference.size_bytes).toBeGreaterThan(EMAIL_THREAD_BODY_LIMIT - 2048);
    expect(Buffer.byteLength(recovered.body)).toBeLessThan(EVENT_OBJECT_MAX_BYTES);
    expect(new Webhook(endpoint.secret).verify(recovered.body, recovered.headers)).toEqual(recovered.json);
  });
});

describe("webhook delivery: retries and order", () => {
  it("retries after a 500 and after a timeout with the same webhook-id, until a 2xx", async () => {
    const { company, path: p, endpoint } = await companyWithEndpoint();
    receiver.script(p, { status: 500, body: "boom" }, "hang");
    await newClient(company, fast);
    const reqs = await waitReceived(p, 3);
    expect(reqs.map((r) => r.answered)).toEqual([
      JSON.stringify({ status: 500, body: "boom" }),
      "hang",
      JSON.stringify({ status: 200, body: "ok" }),
    ]);
    // An idempotent receiver sees one id (and one body) on every attempt; the timestamp is the attempt's.
    expect(new Set(reqs.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(new Set(reqs.map((r) => r.body)).size).toBe(1);
    for (const r of reqs) expect(new Webhook(endpoint.secret).verify(r.body, r.headers)).toEqual(r.json);
    const [row] = await waitDeliveries(endpoint.id, allSettled(1));
    expect(row).toMatchObject({ status: "succeeded", attempts: 3, last_response_status: 200, last_error: null });
    expect((await sql("select failure_streak, failing_since from webhook_endpoints where id = $1", [endpoint.id]))[0]).toEqual({
      failure_streak: 0,
      failing_since: null,
    });
  });

  it("records the last error and a capped body excerpt, and fails the delivery after the last attempt", async () => {
    const { company, path: p, endpoint } = await companyWithEndpoint();
    receiver.script(p, { status: 503, body: "x".repeat(5000) }, { redirect: "https://example.com/elsewhere" }, "hang", {
      huge: 4 * 1024 * 1024,
    });
    await newClient(company, fast);
    await waitReceived(p, 4);
    const [row] = await waitDeliveries(endpoint.id, allSettled(1));
    // The 4th attempt got a 200 with a 4 MiB body: it succeeded, reading only the start of it.
    expect(row).toMatchObject({ status: "succeeded", attempts: 4, last_response_status: 200 });
    expect(row.last_response_body).toBe("x".repeat(1024));
    expect(receiver.hugeBytesSent(p)).toBeLessThan(4 * 1024 * 1024);

    const other = await companyWithEndpoint();
    receiver.script(other.path, { status: 503, body: "y".repeat(5000) }, { redirect: "https://example.com/elsewhere" }, "hang", {
      status: 410,
      body: "gone",
    });
    await newClient(other.company, fast);
    const [failed] = await waitDeliveries(other.endpoint.id, allSettled(1));
    expect(failed).toMatchObject({
      status: "failed",
      attempts: 4,
      last_response_status: 410,
      last_response_body: "gone",
      last_error: "HTTP 410",
    });
    // The redirect was not followed: the receiver got exactly the four attempts, and its endpoint counts the streak.
    expect(receiver.received(other.path)).toHaveLength(4);
    expect((await sql("select failure_streak, enabled from webhook_endpoints where id = $1", [other.endpoint.id]))[0]).toEqual({
      failure_streak: 4,
      enabled: true,
    });
  });

  it("delivers order.created before order.updated for one order even when the first delivery had to retry", async () => {
    const { company, path: p, endpoint } = await companyWithEndpoint(["order.created", "order.updated"]);
    const client = await newClient(company, fast);
    receiver.script(p, { status: 500 }, { status: 500 });
    const order = await company.post("/orders", { client_id: client.body.client.id, title: "Tees" }, on(fast));
    const id = order.body.project.id;
    await company.patch(`/orders/${id}`, { title: "Tees 2" }, on(fast));
    await company.patch(`/orders/${id}`, { title: "Tees 3" }, on(fast));
    const reqs = await waitReceived(p, 5);
    await waitDeliveries(endpoint.id, allSettled(3));
    const answered = reqs.map((r) => `${r.json.type} ${r.json.data.object.project.title} ${r.answered.includes("500") ? 500 : 200}`);
    expect(answered).toEqual([
      "order.created Tees 500",
      "order.created Tees 500",
      "order.created Tees 200",
      "order.updated Tees 2 200",
      "order.updated Tees 3 200",
    ]);
  });
});

describe("webhook delivery: tenants, endpoints and failures", () => {
  it("never sends company A's events to company B's endpoint", async () => {
    const a = await companyWithEndpoint();
    const b = await companyWithEndpoint();
    const created = await newClient(a.company, fast);
    await a.company.patch(`/clients/${created.body.client.id}`, { phone: "2" }, on(fast));
    await waitDeliveries(a.endpoint.id, allSettled(2));
    // B's own write reaches B only.
    await newClient(b.company, fast);
    await waitDeliveries(b.endpoint.id, allSettled(1));
    expect(receiver.received(a.path).map((r) => r.json.type)).toEqual(["client.created", "client.updated"]);
    expect(receiver.received(b.path).map((r) => r.json.type)).toEqual(["client.created"]);
    const [bEvent] = await webhookEvents(b.company.companyId);
    expect(receiver.received(b.path)[0].json.id).toBe(bEvent.event_id);
    expect((await webhookDeliveries(b.endpoint.id)).every((d) => d.event_id === bEvent.event_id)).toBe(true);
  });

  it("disables an endpoint after its failure streak, with the reason; its pending deliveries wait and go out as soon as it is enabled again", async () => {
    const { company, path: p, endpoint } = await companyWithEndpoint();
    receiver.script(p, { status: 500 }, { status: 500 }, { status: 502, body: "bad gateway" });
    await newClient(company, strict);
    const [ep] = await waitFor(
      "the endpoint to be disabled",
      () => sql<any>("select * from webhook_endpoints where id = $1", [endpoint.id]),
      ([row]) => row.enabled === false,
    );
    expect(ep.disabled_reason).toMatch(/^failing since \S+ \(3 failed attempts\); last error: HTTP 502$/);
    expect(ep.disabled_at).not.toBeNull();
    expect(ep).toMatchObject({ failure_streak: 3 });
    // The retrying delivery stops (no 4th attempt, also not from the cron pass), and events written while the
    // endpoint is disabled are not fanned out to it.
    await newClient(company, strict);
    await sql("update webhook_deliveries set enqueued_at = now() - interval '6 minutes' where endpoint_id = $1", [endpoint.id]);
    await strict.worker.scheduled();
    await new Promise((r) => setTimeout(r, 500));
    const waiting = await webhookDeliveries(endpoint.id);
    expect(waiting.map((d) => [d.status, d.attempts])).toEqual([["pending", 3]]);
    expect(receiver.received(p)).toHaveLength(3);
    // Enabled again through the API: what waited is sent at once, without a cron pass.
    const enabled = await company.patch(`/webhook-endpoints/${endpoint.id}`, { enabled: true }, on(strict));
    expect(enabled.status).toBe(200);
    expect(enabled.body.webhook_endpoint).toMatchObject({ enabled: true, disabled_reason: null, failure_streak: 0 });
    const [done] = await waitDeliveries(endpoint.id, allSettled(1));
    expect(done).toMatchObject({ status: "succeeded", attempts: 4 });
    expect(receiver.received(p).map((r) => r.json.id)).toEqual(Array(4).fill(done.event_id));
    expect((await sql<any>("select failure_streak, failing_since from webhook_endpoints where id = $1", [endpoint.id]))[0]).toEqual({
      failure_streak: 0,
      failing_since: null,
    });
  });

  it("recovers a crash between commit and send with the cron pass, rendering the lost payload from the current state", async () => {
    const company = await newCompany();
    const created = await newClient(company, fast); // no endpoint yet: no delivery
    const clientId = created.body.client.id;
    const p = hookPath("lost");
    const endpoint = await createWebhookEndpoint(company.companyId, { url: receiver.url(p) });
    // What a write leaves when the Worker dies right after its commit: the event without payload and its delivery, never sent.
    const [lost] = await sql<{ id: string; event_id: string }>(
      `insert into webhook_events (company_id, type, resource_type, resource_id, created_at)
       values ($1, 'client.updated', 'client', $2, now() - interval '6 minutes') returning id, event_id`,
      [company.companyId, String(clientId)],
    );
    await sql(
      `insert into webhook_deliveries (company_id, endpoint_id, event_id, resource_type, resource_id, created_at)
       values ($1, $2, $3, 'client', $4, now() - interval '6 minutes')`,
      [company.companyId, endpoint.id, lost.id, String(clientId)],
    );
    // A fresh write is the after-commit step's; the pass leaves it alone.
    await company.patch(`/clients/${clientId}`, { phone: "555-0199" }, on(fast));
    const current = await company.get(`/clients/${clientId}`, on(fast));
    await fast.worker.scheduled();
    const rows = await waitDeliveries(endpoint.id, allSettled(2));
    expect(rows.map((r) => r.status)).toEqual(["succeeded", "succeeded"]);
    const [recovered] = receiver.received(p).filter((r) => r.json.id === lost.event_id);
    expect(recovered.json).toMatchObject({ type: "client.updated", data: { object: current.body.client } });
    expect(new Webhook(endpoint.secret).verify(recovered.body, recovered.headers)).toEqual(recovered.json);
    // The payload is stored once: what was sent is what the event row holds.
    const [event] = await sql<{ payload: unknown }>("select payload from webhook_events where id = $1", [lost.id]);
    expect(event.payload).toEqual(recovered.json);
  });

  it("drops deliveries finished 30 days ago and events 90 days old in the cron pass, keeping pending and recent ones", async () => {
    const company = await newCompany();
    const endpoint = await createWebhookEndpoint(company.companyId, { url: receiver.url(hookPath("retention")) });
    // Disabled, so the cron pass does not send the old pending delivery and the rows stay as arranged.
    await sql("update webhook_endpoints set enabled = false where id = $1", [endpoint.id]);
    // Deliveries finished 30 days ago go; their events stay for the feed until they are 90 days old.
    const month = await recordDelivery(company, endpoint.id, { status: "succeeded", age: "31 days" }); // delivery dropped, event kept
    await recordDelivery(company, endpoint.id, { status: "failed", age: "91 days" }); // both dropped
    const oldPending = await recordDelivery(company, endpoint.id, { status: "pending", age: "91 days" });
    const recent = await recordDelivery(company, endpoint.id, { status: "succeeded", age: "29 days" });
    await fast.worker.scheduled();
    const left = await sql<{ id: string }>("select id from webhook_deliveries where endpoint_id = $1 order by id", [endpoint.id]);
    expect(left.map((r) => Number(r.id))).toEqual([oldPending.deliveryId, recent.deliveryId]);
    const events = await sql<{ id: string }>("select id from webhook_events where company_id = $1 order by id", [company.companyId]);
    expect(events.map((r) => Number(r.id))).toEqual([month.eventPk, oldPending.eventPk, recent.eventPk]);
  });

  it("refuses a URL at delivery time that the rules refuse (a failed attempt with the reason, nothing sent)", async () => {
    const company = await newCompany();
    const endpoint = await createWebhookEndpoint(company.companyId, { url: "https://192.168.1.20/hooks" });
    await newClient(company, fast);
    const [row] = await waitDeliveries(endpoint.id, allSettled(1));
    expect(row).toMatchObject({ status: "failed", attempts: 4, last_response_status: null });
    expect(row.last_error).toMatch(/^URL refused: .*private/i);
  });

  it("fails a delivery through the dead-letter queue when the consumer keeps crashing on it, and sends the next one of its resource", async () => {
    const company = await newCompany();
    const p = hookPath("dlq");
    // A secret that is not base64 makes signing throw: a bug's stand-in, every time.
    const endpoint = await createWebhookEndpoint(company.companyId, { url: receiver.url(p), secret: "whsec_not base64!" });
    const created = await newClient(company, fast);
    const [first] = await waitDeliveries(endpoint.id, allSettled(1), DEAD_LETTER_WITHIN_MS);
    expect(first.status).toBe("failed");
    expect(first.last_error).toMatch(/^delivery crashed: .* — gave up: the queue moved the message to the dead-letter queue$/);
    await sql("update webhook_endpoints set secret = $2 where id = $1", [endpoint.id, newWebhookSecret()]);
    await company.patch(`/clients/${created.body.client.id}`, { phone: "3" }, on(fast));
    const rows = await waitDeliveries(endpoint.id, allSettled(2));
    expect(rows.map((r) => r.status)).toEqual(["failed", "succeeded"]);
  }, 120_000);
});

describe("webhook delivery: logs", () => {
  it("never logs secrets or payloads", async () => {
    for (const target of [fast, strict]) {
      expect(scanLog(target.logFile)).toEqual([]);
      const text = (await import("node:fs")).readFileSync(target.logFile, "utf8");
      expect(text).not.toMatch(/whsec_|maya@example\.com|"data":\{"object"/);
      expect(text).toMatch(/webhook delivered|webhook attempt failed/);
    }
  });
});
