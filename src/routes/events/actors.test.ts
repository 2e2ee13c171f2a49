import { describe, expect, it } from "vitest";
import { call, db, expectError, newCompany, sql, type TestCompany, waitFor } from "../../../test/support/api";
import { newClient, newOrder } from "../../../test/support/orders";
import { createToken } from "../../../tools/ops/commands";

/*
 * Who caused each event (`actor`), in which request (`request_id`), what an update replaced
 * (`previous_attributes`), and the feed's filters on them; over HTTP against the Worker.
 */

const settled = (co: TestCompany) =>
  waitFor(
    "payloads filled after commit",
    () => sql("select 1 from webhook_events where company_id = $1 and payload is null", [co.companyId]),
    (rows) => rows.length === 0,
  );

/** The events of the feed for `query`, oldest first. */
const feed = async (co: TestCompany, query = "") => {
  const res = await co.get(`/events${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.data as any[]).reverse();
};

/** A second write token of the company, as another integration would hold. */
async function secondToken(co: TestCompany) {
  const { token, token_id } = await createToken(db(), { companyId: co.companyId, name: "second" });
  return { tokenId: token_id, post: (path: string, body: unknown) => call("POST", path, { token, body }) };
}

describe("events: actor, request_id, previous_attributes", () => {
  it("a client update's event names its token and request and carries the fields it replaced; GET /events?request_id= finds it", async () => {
    const co = await newCompany();
    const id = await newClient(co, { company_name: "Before Co", phone: "555-0100" });
    const patched = await co.patch(`/clients/${id}`, { company_name: "After Co", phone: "555-0100", website: "https://after.example" });
    expect(patched.status).toBe(200);
    const requestId = patched.headers.get("x-request-id")!;
    expect(requestId).toBeTruthy();
    await settled(co);
    const [event] = await feed(co, `?request_id=${requestId}`);
    expect(event).toMatchObject({
      type: "client.updated",
      actor: { type: "token", id: String(co.tokenId) },
      request_id: requestId,
      // The phone was sent unchanged: only what changed, with its value before.
      data: { object: patched.body.client, previous_attributes: { company_name: "Before Co", website: null } },
    });
    expect(Object.keys(event.data.previous_attributes).sort()).toEqual(["company_name", "website"]);
    expect((await feed(co, `?request_id=${requestId}`)).length).toBe(1);
    // The caller's own X-Request-Id is the event's.
    const mine = await co.patch(`/clients/${id}`, { metadata: { crm: "7" } }, { headers: { "x-request-id": `sync-run-${id}` } });
    expect(mine.headers.get("x-request-id")).toBe(`sync-run-${id}`);
    await settled(co);
    const [tagged] = await feed(co, `?request_id=sync-run-${id}`);
    expect(tagged.data.previous_attributes).toEqual({ metadata: {} });
    // The create carries no previous_attributes; a delete is not an update.
    const [created] = await feed(co, "?type=client.created");
    expect(created.actor).toEqual({ type: "token", id: String(co.tokenId) });
    expect(created.data).not.toHaveProperty("previous_attributes");
  });

  it("an order update carries the project's and invoice's fields it replaced; a contents write carries {}; both name their request", async () => {
    const co = await newCompany();
    const { project } = await newOrder(co, { title: "Team tees" });
    const patched = await co.patch(`/orders/${project.id}`, { title: "Rush tees", discount_amount: "5", client_notes: "Thanks" });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const added = await co.post(`/orders/${project.id}/items`, { title: "Tee", unit_price: "4.00" });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    await settled(co);
    const [update] = await feed(co, `?request_id=${patched.headers.get("x-request-id")}`);
    expect(update).toMatchObject({ type: "order.updated", actor: { type: "token", id: String(co.tokenId) } });
    expect(update.data.previous_attributes).toEqual({ title: "Team tees", discount_amount: "0.00", client_notes: null });
    const [contents] = await feed(co, `?request_id=${added.headers.get("x-request-id")}`);
    expect(contents).toMatchObject({ type: "order.updated", data: { previous_attributes: {} } });
    // A batch's update writes the same previous_attributes as the PATCH.
    const batch = await co.post("/orders/batch", { items: [{ method: "update", id: project.id, data: { title: "Batch tees" } }] });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    await settled(co);
    const [batched] = await feed(co, `?request_id=${batch.headers.get("x-request-id")}`);
    expect(batched.data.previous_attributes).toEqual({ title: "Rush tees" });
  });

  it("filters by actor_type and actor_id; actor_id alone is refused; the import's events are the system's", async () => {
    const co = await newCompany();
    const second = await secondToken(co);
    await newClient(co, { company_name: "By the first token" });
    expect((await second.post("/clients", { company_name: "By the second token" })).status).toBe(200);
    await co.load({ clients: [{ ref: "imported", company_name: "Imported" }] });
    await settled(co);
    const names = (events: any[]) => events.map((e) => e.data.object.company_name);
    expect(names(await feed(co, `?actor_type=token&actor_id=${second.tokenId}`))).toEqual(["By the second token"]);
    expect(names(await feed(co, `?actor_type=token&actor_id=${co.tokenId}`))).toEqual(["By the first token"]);
    expect(names(await feed(co, "?actor_type=token"))).toEqual(["By the first token", "By the second token"]);
    const system = await feed(co, "?actor_type=system");
    expect(names(system)).toEqual(["Imported"]);
    expect(system[0]).toMatchObject({ actor: { type: "system", id: null }, request_id: null });
    expectError(await co.get(`/events?actor_id=${co.tokenId}`), 400, "invalid_request");
    expectError(await co.get("/events?actor_type=robot"), 400, "invalid_request");
  });

  it("company B's filters never show company A's events", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const patched = await a.patch(`/clients/${await newClient(a)}`, { phone: "1" });
    await newClient(b);
    await settled(a);
    const requestId = patched.headers.get("x-request-id");
    expect((await feed(a, `?request_id=${requestId}`)).length).toBe(1);
    expect(await feed(b, `?request_id=${requestId}`)).toEqual([]);
    expect(await feed(b, `?actor_type=token&actor_id=${a.tokenId}`)).toEqual([]);
    expect((await feed(b, `?actor_type=token&actor_id=${b.tokenId}`)).length).toBe(1);
  });
});
