import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newCompany, sql, type TestCompany, waitFor } from "../../../test/support/api";
import { expectBatchLosesExternalIdRace } from "../../../test/support/locks";
import { newClient, newOrder, outboxRows } from "../../../test/support/orders";

const batch = (co: TestCompany, items: unknown[], atomic?: boolean, headers: Record<string, string> = {}) =>
  co.post("/orders/batch", atomic === undefined ? { items } : { atomic, items }, { headers });
const ordersOf = (companyId: number) =>
  sql<{ id: number; title: string; external_id: string | null }>(
    "select id, title, external_id from projects where company_id = $1 and deleted_at is null order by id",
    [companyId],
  );
const counts = async (companyId: number) =>
  (
    await sql(
      `select (select count(*) from projects where company_id = $1)::int projects, (select count(*) from invoices where company_id = $1)::int invoices,
        (select count(*) from invoice_items where company_id = $1)::int items, (select count(*) from accounting_outbox where company_id = $1)::int outbox,
        (select count(*) from webhook_events where company_id = $1 and type like 'order.%')::int events`,
      [companyId],
    )
  )[0];

describe("POST /orders/batch", () => {
  it("creates, updates and upserts; an unknown client or order fails only its item, with its single request's answer", async () => {
    const a = await newCompany({ accountingSync: true });
    const b = await newCompany();
    const clientId = await newClient(a);
    const foreignClient = await newClient(b);
    const existing = await newOrder(a, { client_id: clientId, title: "Existing" });
    // One request id for the batch and the single requests it is compared with (error bodies carry it).
    const rid = { "x-request-id": `batch-${randomUUID()}` };
    const res = await batch(
      a,
      [
        {
          method: "create",
          external_id: "s-1",
          data: { title: "New", client_id: clientId, items: [{ title: "Tee", unit_price: "10.00", quantity: 3 }] },
        },
        { method: "create", data: { title: "Foreign client", client_id: foreignClient } },
        { method: "update", id: existing.project.id, data: { title: "Existing renamed", discount_amount: 10 } },
        { method: "update", external_id: "nope", data: { title: "x" } },
        { method: "upsert", external_id: "s-2", data: { title: "Upserted", client_id: clientId } },
        { method: "update", id: existing.project.id + 100000, data: { title: "x" } },
        { method: "create", data: { title: "Bad line", client_id: clientId, items: [{ title: "x", unit_price: "abc" }] } },
      ],
      undefined,
      rid,
    );
    expect(res.status).toBe(200);
    const items = res.body.data;
    expect(items.map((i: any) => i.status)).toEqual([200, 400, 200, 404, 201, 404, 400]);
    expect(items[0].body.invoice.totals.total).toBe("30.00");
    expect(items[0].body.project.external_id).toBe("s-1");
    // The single requests' answers, exactly.
    expect(items[1].body).toEqual((await a.post("/orders", { title: "Foreign client", client_id: foreignClient }, { headers: rid })).body);
    expect(items[2].body.project.title).toBe("Existing renamed");
    expect(items[2].body.invoice.discount_amount).toBe("10.00");
    expect(items[3].body).toEqual((await a.patch("/orders/2147483000", { title: "x" }, { headers: rid })).body);
    expect(items[6].body).toEqual(
      (await a.post("/orders", { title: "Bad line", client_id: clientId, items: [{ title: "x", unit_price: "abc" }] }, { headers: rid }))
        .body,
    );
    expect((await ordersOf(a.companyId)).map((o) => o.title)).toEqual(["Existing renamed", "New", "Upserted"]);
    // As the single requests: a create row per new order, an update for the discount; one event each.
    const byOrder = async (id: number) => (await outboxRows(id)).map((r) => r.operation);
    expect(await byOrder(items[0].body.project.id)).toEqual(["create"]);
    expect(await byOrder(existing.project.id)).toEqual(["create", "update"]);
    expect(await byOrder(items[4].body.project.id)).toEqual(["create"]);
    const types = await sql<{ type: string }>("select type from webhook_events where company_id = $1 and type like 'order.%' order by id", [
      a.companyId,
    ]);
    expect(types.map((t) => t.type).sort()).toEqual(["order.created", "order.created", "order.created", "order.updated"]);
  });

  it("an update that changes status_id writes order.status_changed after its order.updated, as PATCH does", async () => {
    const a = await newCompany();
    const order = await newOrder(a);
    const status = (await a.post("/statuses", { name: "In production" })).body.status;
    const res = await batch(a, [{ method: "update", id: order.project.id, data: { status_id: status.id } }]);
    expect(res.body.data[0].status).toBe(200);
    const events = await waitFor(
      "the status change's payload",
      () =>
        sql<{ type: string; payload: any }>(
          "select type, payload from webhook_events where company_id = $1 and resource_id = $2 and type <> 'order.created' order by id",
          [a.companyId, String(order.project.id)],
        ),
      (rows) => rows.length === 2 && rows.every((r) => r.payload !== null),
    );
    expect(events.map((e) => e.type)).toEqual(["order.updated", "order.status_changed"]);
    expect(events[1].payload.data).toEqual({ object: res.body.data[0].body, previous_attributes: { status_id: null } });
  });

  it("atomic: a failing item rolls back every other (project, invoice, lines, outbox, events)", async () => {
    const a = await newCompany({ accountingSync: true });
    const clientId = await newClient(a);
    const existing = await newOrder(a, { client_id: clientId, title: "Kept" });
    const before = await counts(a.companyId);
    const res = await batch(
      a,
      [
        { method: "create", data: { title: "Rolled", client_id: clientId, items: [{ title: "Line", unit_price: 1 }] } },
        { method: "update", id: existing.project.id, data: { title: "Renamed", client_notes: "x" } },
        { method: "upsert", external_id: "atomic", data: { title: "Also rolled", client_id: clientId } },
        { method: "create", data: { title: "Fails", client_id: 2147483000 } },
      ],
      true,
    );
    expect(res.body.data.map((i: any) => [i.status, i.body.error?.code])).toEqual([
      [424, "rolled_back"],
      [424, "rolled_back"],
      [424, "rolled_back"],
      [400, "invalid_request"],
    ]);
    expect(await counts(a.companyId)).toEqual(before);
    expect((await a.get(`/orders/${existing.project.id}`)).body.project.title).toBe("Kept");
    const ok = await batch(
      a,
      [
        { method: "create", data: { title: "Written", client_id: clientId } },
        { method: "update", id: existing.project.id, data: { title: "Renamed" } },
      ],
      true,
    );
    expect(ok.body.data.map((i: any) => i.status)).toEqual([200, 200]);
    expect((await ordersOf(a.companyId)).map((o) => o.title)).toEqual(["Renamed", "Written"]);
  });

  it("two batches upserting the same external ids at once make one order each", async () => {
    const a = await newCompany();
    const clientId = await newClient(a);
    const keys = Array.from({ length: 15 }, (_, i) => `sync-${i}`);
    const items = (title: string) =>
      keys.map((k) => ({
        method: "upsert",
        external_id: k,
        data: { title: `${title} ${k}`, client_id: clientId, items: [{ title: "L", unit_price: 1 }] },
      }));
    const results = await Promise.all([batch(a, items("A")), batch(a, [...items("B")].reverse()), batch(a, items("C"), true)]);
    for (const r of results)
      expect(
        r.body.data.every((i: any) => i.status === 200 || i.status === 201),
        JSON.stringify(r.body).slice(0, 500),
      ).toBe(true);
    expect((await ordersOf(a.companyId)).map((o) => o.external_id).sort()).toEqual([...keys].sort());
    expect(results.flatMap((r) => r.body.data.filter((i: any) => i.status === 201))).toHaveLength(keys.length);
    // Each order has one live line (every upsert replaced them), and one default invoice.
    const lines = await sql<{ n: number }>(
      "select count(*)::int n from invoice_items i join invoices v on v.id = i.invoice_id where v.company_id = $1 and i.deleted_at is null group by v.id",
      [a.companyId],
    );
    expect(lines.map((l) => l.n)).toEqual(Array(keys.length).fill(1));
  });

  it("company B's batch never touches A's orders; A's external ids are B's own", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const order = await newOrder(a, { title: "A's", external_id: "shared" });
    const clientB = await newClient(b);
    const before = await counts(a.companyId);
    const res = await batch(b, [
      { method: "update", id: order.project.id, data: { title: "Stolen" } },
      { method: "update", external_id: "shared", data: { title: "Stolen" } },
      { method: "upsert", external_id: "shared-2", data: { title: "B's", client_id: clientB } },
    ]);
    expect(res.body.data.map((i: any) => i.status)).toEqual([404, 404, 201]);
    expect(res.body.data[0].body).toEqual(res.body.data[1].body);
    const upsert = await batch(b, [{ method: "upsert", external_id: "shared", data: { title: "B's own", client_id: clientB } }]);
    expect(upsert.body.data[0].status).toBe(201);
    expect(upsert.body.data[0].body.project.id).not.toBe(order.project.id);
    expect(await counts(a.companyId)).toEqual(before);
    expect((await a.get(`/orders/${order.project.id}`)).body.project.title).toBe("A's");
  });
});

describe("POST /orders/batch racing POST /orders for an external id", () => {
  // The batch's transaction reads (and locks) its orders; the held row makes it wait after its snapshot,
  // so a POST /orders that takes the external id meanwhile commits before the batch writes it.
  for (const mode of ["atomic", "keyed"] as const) {
    it(`${mode}: the update that sets the taken external id is that item's 409 naming the order that has it`, async () => {
      const co = await newCompany();
      const clientId = await newClient(co);
      const target = await newOrder(co, { client_id: clientId });
      const other = await newOrder(co, { client_id: clientId, title: "Other" });
      await expectBatchLosesExternalIdRace(
        co,
        {
          path: "/orders",
          table: "projects",
          noun: "order",
          idOf: (body) => body.project.id,
          create: { title: "Raced", client_id: clientId, external_id: "raced" },
          otherChange: { title: "Renamed" },
          rows: async (companyId) => (await ordersOf(companyId)).map((r) => ({ ...r, changed: r.title === "Renamed" })),
        },
        { target: target.project.id, other: other.project.id },
        mode,
      );
    });
  }
});
