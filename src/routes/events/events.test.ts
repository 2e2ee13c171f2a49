import { describe, expect, it } from "vitest";
import { type ApiResponse, db, expectError, newCompany, sql, type TestCompany, waitFor } from "../../../test/support/api";
import { newClient } from "../../../test/support/orders";
import { renderLostPayloads } from "../../webhooks/feed";
import { purgeOldWebhookRows } from "../../webhooks/queue";

/** Waits until every event of the company has its payload (filled after each change's commit). */
const settled = (co: TestCompany) =>
  waitFor(
    "payloads filled after commit",
    () => sql("select 1 from webhook_events where company_id = $1 and payload is null", [co.companyId]),
    (rows) => rows.length === 0,
  );

/** Follows next_cursor from `path` to the end; every event seen, page by page. */
async function walk(co: TestCompany, path: string) {
  const pages: any[][] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const res: ApiResponse = await co.get(cursor ? `${path}${sep}cursor=${cursor}` : path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push(res.body.data);
    cursor = res.body.pagination.next_cursor;
    if (pages.length > 50) throw new Error("cursor walk does not end");
  } while (cursor);
  return pages;
}

describe("GET /events", () => {
  it("lists every change's event newest first, with the webhook payload, whether or not an endpoint subscribes", async () => {
    const co = await newCompany();
    const created = (await co.post("/clients", { company_name: "Feed Co" })).body.client;
    const updated = (await co.patch(`/clients/${created.id}`, { phone: "555" })).body.client;
    const order = (await co.post("/orders", { title: "Feed order", client_id: created.id })).body;
    await settled(co);
    const res = await co.get("/events");
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ per_page: 25, next_cursor: null });
    expect(res.body.data.map((e: any) => e.type)).toEqual(["order.created", "client.updated", "client.created"]);
    expect(res.body.data[0].data.object).toEqual(order);
    expect(res.body.data[1].data.object).toEqual(updated);
    expect(res.body.data[2].data.object).toEqual(created);
    // Exactly what a webhook delivery sends: the stored payload.
    const stored = await sql<{ payload: unknown }>("select payload from webhook_events where company_id = $1 order by id desc", [
      co.companyId,
    ]);
    expect(res.body.data).toEqual(stored.map((s) => s.payload));
    for (const e of res.body.data) {
      expect(e.id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(e.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect((await co.get(`/events/${e.id}`)).body).toEqual(e);
    }
  });

  it("filters by type (one, repeated, comma-separated), resource_id and created_after / created_before", async () => {
    const co = await newCompany();
    const c1 = await newClient(co, { company_name: "One" });
    const c2 = await newClient(co, { company_name: "Two" });
    await co.patch(`/clients/${c1}`, { phone: "1" });
    await co.post("/orders", { title: "O", client_id: c2 });
    await settled(co);
    // A second apart, oldest first (the wire shows milliseconds, the database keeps microseconds).
    await sql(
      `update webhook_events e set created_at = '2026-11-01T00:00:00Z'::timestamptz + o.n * interval '1 second'
       from (select id, row_number() over (order by id) n from webhook_events where company_id = $1) o where e.id = o.id`,
      [co.companyId],
    );
    await sql(
      `update webhook_events set payload = jsonb_set(payload, '{created_at}', to_jsonb(to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
       where company_id = $1`,
      [co.companyId],
    );
    const types = async (query: string) => (await co.get(`/events?${query}`)).body.data.map((e: any) => e.type);
    expect(await types("type=client.updated")).toEqual(["client.updated"]);
    expect(await types("type=client.updated&type=order.created")).toEqual(["order.created", "client.updated"]);
    expect(await types("type=client.updated,order.created")).toEqual(["order.created", "client.updated"]);
    expect(await types(`resource_id=${c1}&type=client.created,client.updated`)).toEqual(["client.updated", "client.created"]);
    const all = (await co.get("/events")).body.data;
    const middle = all[2].created_at;
    expect((await co.get(`/events?created_before=${middle}`)).body.data.map((e: any) => e.id)).toEqual(
      all.filter((e: any) => e.created_at < middle).map((e: any) => e.id),
    );
    expect((await co.get(`/events?created_after=${middle}`)).body.data.map((e: any) => e.id)).toEqual(
      all.filter((e: any) => e.created_at > middle).map((e: any) => e.id),
    );
    for (const [query, field] of [
      ["type=client.exploded", "type.0"],
      ["created_after=yesterday", "created_after"],
      ["per_page=101", "per_page"],
      ["cursor=nope", "cursor"],
    ]) {
      expect(expectError(await co.get(`/events?${query}`), 400, "invalid_request").details, query).toEqual([
        expect.objectContaining({ field }),
      ]);
    }
    expectError(await co.get("/events/not-an-event"), 400, "invalid_request");
  });

  it("walks with keyset cursors: every event once, newest first, stable while new events arrive; a cursor is bound to its filters and company", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const ids = await a.post("/clients/batch", {
      items: Array.from({ length: 7 }, (_, i) => ({ method: "create", data: { company_name: `C${i}` } })),
    });
    expect(ids.status).toBe(200);
    await settled(a);
    const first = await a.get("/events?per_page=3");
    const cursor = first.body.pagination.next_cursor;
    // A new event arrives at the top, not in the walk.
    await a.post("/clients", { company_name: "Late" });
    const rest: any[] = [];
    for (let next = cursor; next; ) {
      const page = await a.get(`/events?per_page=3&cursor=${next}`);
      expect(page.status).toBe(200);
      rest.push(...page.body.data);
      next = page.body.pagination.next_cursor;
    }
    const seen = [...first.body.data, ...rest].map((e: any) => e.data.object.company_name);
    expect(seen).toEqual(["C6", "C5", "C4", "C3", "C2", "C1", "C0"]);
    expect((await walk(a, "/events?per_page=3")).flat()).toHaveLength(8);
    expectError(await a.get(`/events?per_page=3&type=client.created&cursor=${cursor}`), 400, "invalid_request");
    expectError(await b.get(`/events?per_page=3&cursor=${cursor}`), 400, "invalid_request");
  });

  it("company B never sees company A's events, and A's event id is B's 404, as a missing one", async () => {
    const a = await newCompany();
    const b = await newCompany();
    await newClient(a, { company_name: "Secret A" });
    await settled(a);
    const [event] = (await a.get("/events")).body.data;
    expect((await b.get("/events")).body.data).toEqual([]);
    expect((await b.get(`/events?resource_id=${event.data.object.id}`)).body.data).toEqual([]);
    const rid = { headers: { "x-request-id": "events-tenancy" } };
    const foreign = await b.get(`/events/${event.id}`, rid);
    const missing = await b.get(`/events/evt_${"0".repeat(32)}`, rid);
    expectError(foreign, 404, "not_found");
    expect(foreign.body).toEqual(missing.body);
  });

  it("shows only the last 90 days; the cron pass drops older events without pending deliveries", async () => {
    const co = await newCompany();
    const id = await newClient(co);
    await co.patch(`/clients/${id}`, { phone: "1" });
    await settled(co);
    const [old] = await sql<{ event_id: string }>(
      "update webhook_events set created_at = now() - interval '91 days' where company_id = $1 and type = 'client.created' returning event_id",
      [co.companyId],
    );
    expect((await co.get("/events")).body.data.map((e: any) => e.type)).toEqual(["client.updated"]);
    expectError(await co.get(`/events/${old.event_id}`), 404, "not_found");
    await purgeOldWebhookRows(db());
    expect(await sql("select 1 from webhook_events where event_id = $1", [old.event_id])).toEqual([]);
  });

  it("an event whose after-commit step was lost is rendered from the current state: by the feed (stored once a minute old) and by the cron pass", async () => {
    const co = await newCompany();
    const id = await newClient(co, { company_name: "Lost" });
    await settled(co);
    // What a write leaves when the Worker dies right after its commit: the event without its payload.
    await sql("update webhook_events set payload = null where company_id = $1", [co.companyId]);
    await co.patch(`/clients/${id}`, { company_name: "Lost, then renamed" });
    await waitFor(
      "client.updated's payload",
      () => sql("select 1 from webhook_events where company_id = $1 and type = 'client.updated' and payload is not null", [co.companyId]),
      (rows) => rows.length === 1,
    );
    const young = (await co.get("/events?type=client.created")).body.data[0];
    expect(young.data.object).toMatchObject({ id, company_name: "Lost, then renamed" });
    // Young: rendered for the answer, not stored (the after-commit step may still fill the exact one).
    expect((await sql("select payload from webhook_events where event_id = $1", [young.id]))[0].payload).toBeNull();
    await sql("update webhook_events set created_at = now() - interval '2 minutes' where event_id = $1", [young.id]);
    const old = (await co.get(`/events/${young.id}`)).body;
    expect((await sql("select payload from webhook_events where event_id = $1", [young.id]))[0].payload).toEqual(old);
    // The cron pass fills any other lost one.
    await sql("update webhook_events set payload = null, created_at = now() - interval '2 minutes' where company_id = $1", [co.companyId]);
    expect(
      await renderLostPayloads(db(), () => async (_db, e) => ({ object: JSON.stringify({ id: Number(e.resourceId), rendered: true }) })),
    ).toBeGreaterThanOrEqual(2);
    const payloads = await sql<{ payload: any }>("select payload from webhook_events where company_id = $1", [co.companyId]);
    expect(payloads.map((p) => p.payload.data.object)).toEqual([
      { id, rendered: true },
      { id, rendered: true },
    ]);
  });

  it("batches, upserts and the import show in the feed like single writes", async () => {
    const co = await newCompany();
    await co.put("/clients/by-external-id/x-1", { company_name: "Upserted" });
    await co.post("/clients/batch", { items: [{ method: "upsert", external_id: "x-1", data: { company_name: "Again" } }] });
    await co.load({ clients: [{ ref: "c", company_name: "Imported" }] });
    await settled(co);
    const feed = (await co.get("/events")).body.data;
    expect(feed.map((e: any) => [e.type, e.data.object.company_name])).toEqual([
      ["client.created", "Imported"],
      ["client.updated", "Again"],
      ["client.created", "Upserted"],
    ]);
  });
});
