import { describe, expect, it } from "vitest";
import { expectError, newCompany, type TestCompany, waitFor } from "../../../test/support/api";
import { newOrder } from "../../../test/support/orders";
import { newEndpoint, webhookEvents } from "../../../test/support/webhooks";

async function statuses(co: TestCompany, ...names: string[]) {
  const ids: number[] = [];
  for (const name of names) ids.push((await co.post("/statuses", { name })).body.status.id);
  return ids;
}
const eventsOf = async (co: TestCompany, orderId: number) =>
  (await webhookEvents(co.companyId)).filter((e) => e.resource_type === "order" && e.resource_id === String(orderId));

describe("order.status_changed", () => {
  it("PATCH /orders/{id} that changes status_id writes it after order.updated, with the status it left; the payload carries the order and previous_attributes", async () => {
    const co = await newCompany();
    // Subscribed to status changes only: the delivery's payload is filled after the commit.
    await newEndpoint(co, { events: ["order.status_changed"] });
    const [quote, production] = await statuses(co, "Quote", "In production");
    const { project } = await newOrder(co);
    expect((await co.patch(`/orders/${project.id}`, { status_id: quote })).status).toBe(200);
    const moved = await co.patch(`/orders/${project.id}`, { status_id: production, title: "Rush tees" });
    expect(moved.status).toBe(200);
    const events = await eventsOf(co, project.id);
    expect(events.map((e) => e.type)).toEqual([
      "order.created",
      "order.updated",
      "order.status_changed",
      "order.updated",
      "order.status_changed",
    ]);
    const last = await waitFor(
      "the status change's payload",
      async () => (await eventsOf(co, project.id)).at(-1)!,
      (e) => e.payload !== null,
    );
    expect(last.payload).toEqual({
      id: last.event_id,
      type: "order.status_changed",
      created_at: expect.any(String),
      actor: { type: "token", id: String(co.tokenId) },
      request_id: moved.headers.get("x-request-id"),
      data: { object: moved.body, previous_attributes: { status_id: quote } },
    });
    // The first change left no status.
    expect(
      (
        await waitFor(
          "the first change's payload",
          async () => (await eventsOf(co, project.id))[2],
          (e) => e.payload !== null,
        )
      ).payload.data.previous_attributes,
    ).toEqual({ status_id: null });
  });

  it("clearing the status is a change; the same status again, a PATCH without status_id and a refused PATCH are not", async () => {
    const co = await newCompany();
    const [ready] = await statuses(co, "Ready");
    const { project } = await newOrder(co);
    await co.patch(`/orders/${project.id}`, { status_id: ready });
    const types = async () => (await eventsOf(co, project.id)).map((e) => e.type);
    const before = await types();
    expect((await co.patch(`/orders/${project.id}`, { status_id: ready })).status).toBe(200);
    expect((await co.patch(`/orders/${project.id}`, { title: "Renamed" })).status).toBe(200);
    expectError(await co.patch(`/orders/${project.id}`, { status_id: 2147483000 }), 400, "invalid_request");
    expect(await types()).toEqual([...before, "order.updated", "order.updated"]);
    expect((await co.patch(`/orders/${project.id}`, { status_id: null })).status).toBe(200);
    const events = await eventsOf(co, project.id);
    expect(events.map((e) => e.type).slice(-2)).toEqual(["order.updated", "order.status_changed"]);
    // Written with the event (no endpoint here: its payload is made when a delivery needs it).
    expect((events.at(-1) as any).previous_attributes).toEqual({ status_id: ready });
  });
});
