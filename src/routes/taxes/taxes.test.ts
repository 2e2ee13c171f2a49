import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRequest, expectError, newCompany, sql, type TestCompany, waitFor } from "../../../test/support/api";
import { holdRow } from "../../../test/support/locks";
import { newOrder, orderRows, outboxRows } from "../../../test/support/orders";
import { webhookEvents } from "../../../test/support/webhooks";

async function create(co: TestCompany, body: Record<string, unknown>) {
  const res = await co.post("/taxes", body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.tax as { id: number; name: string; rate: string; created_at: string; updated_at: string };
}

/** An order with one 100.00 line (and a 20.00 payment when `paid`), its invoice given `tax`. */
async function taxedOrder(co: TestCompany, taxId: number | null, extra: Record<string, unknown> = {}) {
  const { project } = await newOrder(co, { quickbooks_enabled: false });
  expect((await co.post(`/orders/${project.id}/items`, { title: "Tees", quantity: 4, unit_price: "25.00" })).status).toBe(200);
  if (taxId !== null)
    expect((await co.patch(`/orders/${project.id}`, { tax_id: taxId, quickbooks_enabled: false, ...extra })).status).toBe(200);
  return project.id as number;
}
const totals = async (co: TestCompany, id: number) => (await co.get(`/orders/${id}`)).body.invoice.totals;
const eventsOf = async (co: TestCompany, orderId: number) =>
  (await webhookEvents(co.companyId)).filter((e) => e.resource_id === String(orderId)).map((e) => e.type);

describe("GET and POST /taxes", () => {
  it("creates taxes with a rate sent as a JSON number or a string, and lists them oldest first", async () => {
    const co = await newCompany();
    expect((await co.get("/taxes")).body).toEqual({ data: [] });
    const city = await create(co, { name: "City + state", rate: 8.875 });
    expect(city).toEqual({
      id: expect.any(Number),
      name: "City + state",
      rate: "8.875",
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    await create(co, { name: "State", rate: "6.2500" });
    await create(co, { name: "None", rate: 0 });
    await create(co, { name: "All", rate: "100" });
    expect((await co.get("/taxes")).body.data.map((t: any) => [t.name, t.rate])).toEqual([
      ["City + state", "8.875"],
      ["State", "6.25"],
      ["None", "0"],
      ["All", "100"],
    ]);
  });

  it("refuses a rate outside 0–100, with more than 4 decimals or not a decimal, and a blank name; nothing is written", async () => {
    const co = await newCompany();
    for (const rate of [100.0001, "-1", "8.87501", "abc", "1e-5", "1e3", true, null]) {
      const err = expectError(await co.post("/taxes", { name: "T", rate }), 400, "invalid_request");
      expect(
        err.details.map((d: { field: string }) => d.field),
        String(rate),
      ).toEqual(["rate"]);
    }
    expect(expectError(await co.post("/taxes", { name: " ", rate: 5 }), 400, "invalid_request").details[0].field).toBe("name");
    expect(expectError(await co.post("/taxes", { name: "T", rate: 5, extra: 1 }), 400, "invalid_request").details[0].field).toBe("extra");
    expect(await sql("select 1 from taxes where company_id = $1", [co.companyId])).toEqual([]);
  });
});

describe("PATCH /taxes/{id}", () => {
  it("a new rate changes the totals of the live orders with the tax, exactly as setting tax_id would: updated_at, accounting update, order.updated", async () => {
    const co = await newCompany({ accountingSync: true });
    const tax = await create(co, { name: "Sales tax", rate: "10" });
    const other = await create(co, { name: "Other", rate: "5" });
    const taxed = await taxedOrder(co, tax.id);
    const exempt = await taxedOrder(co, tax.id, { tax_exempt: true });
    const untaxed = await taxedOrder(co, other.id);
    const gone = await taxedOrder(co, tax.id);
    expect((await co.del(`/orders/${gone}`)).status).toBe(200);
    expect((await totals(co, taxed)).total).toBe("110.00");
    const before = {
      taxed: (await orderRows(taxed)) as any,
      untaxed: await orderRows(untaxed),
      gone: await orderRows(gone),
      untaxedOutbox: await outboxRows(untaxed),
    };
    const events = { taxed: await eventsOf(co, taxed), exempt: await eventsOf(co, exempt), untaxed: await eventsOf(co, untaxed) };

    const res = await co.patch(`/taxes/${tax.id}`, { rate: 8.875 });
    expect(res.status).toBe(200);
    expect(res.body.tax).toMatchObject({ id: tax.id, name: "Sales tax", rate: "8.875" });
    expect(await totals(co, taxed)).toMatchObject({ subtotal: "100.00", tax: "8.88", total: "108.88" });
    expect((await totals(co, exempt)).total).toBe("100.00");
    const after = (await orderRows(taxed)) as any;
    expect(after.project.updated_at > before.taxed.project.updated_at).toBe(true);
    expect(after.invoices[0].updated_at > before.taxed.invoices[0].updated_at).toBe(true);
    // The outbox rows a PATCH of tax_id writes, with the invoice's tax state after the change.
    expect((await outboxRows(taxed)).slice(-1)).toEqual([
      expect.objectContaining({ operation: "update", payload: { changes: { tax: { tax_id: tax.id, rate: "8.875", tax_exempt: false } } } }),
    ]);
    expect((await outboxRows(exempt)).slice(-1)).toEqual([
      expect.objectContaining({ operation: "update", payload: { changes: { tax: { tax_id: tax.id, rate: "8.875", tax_exempt: true } } } }),
    ]);
    expect(await eventsOf(co, taxed)).toEqual([...events.taxed, "order.updated"]);
    expect(await eventsOf(co, exempt)).toEqual([...events.exempt, "order.updated"]);
    // Another tax's order and a deleted order are left as they were.
    expect(await eventsOf(co, untaxed)).toEqual(events.untaxed);
    expect(await orderRows(untaxed)).toEqual(before.untaxed);
    expect(await orderRows(gone)).toEqual(before.gone);
    expect(await outboxRows(untaxed)).toEqual(before.untaxedOutbox);
  });

  it("a name alone, or the same rate written otherwise, changes no order; without accounting sync no outbox row is written", async () => {
    const co = await newCompany();
    const tax = await create(co, { name: "Sales tax", rate: "10" });
    const order = await taxedOrder(co, tax.id);
    const before = await orderRows(order);
    const eventsBefore = await eventsOf(co, order);
    expect((await co.patch(`/taxes/${tax.id}`, { name: "Renamed" })).body.tax).toMatchObject({ name: "Renamed", rate: "10" });
    expect((await co.patch(`/taxes/${tax.id}`, { rate: "10.0000" })).status).toBe(200);
    expect(await orderRows(order)).toEqual(before);
    expect(await eventsOf(co, order)).toEqual(eventsBefore);
    expect((await co.patch(`/taxes/${tax.id}`, { rate: "12" })).status).toBe(200);
    expect(await eventsOf(co, order)).toEqual([...eventsBefore, "order.updated"]);
    expect(await outboxRows(order)).toEqual([]);
    expect((await totals(co, order)).total).toBe("112.00");
  });

  it("404 for a missing or deleted tax, 400 for an empty body or a bad rate", async () => {
    const co = await newCompany();
    const tax = await create(co, { name: "T", rate: "1" });
    expectError(await co.patch(`/taxes/${tax.id}`, {}), 400, "invalid_request");
    expectError(await co.patch(`/taxes/${tax.id}`, { rate: 101 }), 400, "invalid_request");
    expectError(await co.patch("/taxes/2147483000", { rate: 2 }), 404, "not_found");
    expect((await co.del(`/taxes/${tax.id}`)).status).toBe(200);
    expectError(await co.patch(`/taxes/${tax.id}`, { rate: 2 }), 404, "not_found");
  });

  it("a rate change waits for an order write that gives an invoice the tax (it holds the tax until it commits), then changes that order too", async () => {
    const co = await newCompany({ accountingSync: true });
    const tax = await create(co, { name: "Sales tax", rate: "10" });
    const order = await taxedOrder(co, null);
    const held = await holdRow("projects", order);
    const patching = co.patch(`/orders/${order}`, { tax_id: tax.id });
    await held.blocked(1);
    const changing = co.patch(`/taxes/${tax.id}`, { rate: "20" });
    await held.blocked(2);
    await held.release();
    const [patched, changed] = await Promise.all([patching, changing]);
    expect([patched.status, changed.status]).toEqual([200, 200]);
    expect(patched.body.invoice.totals.total).toBe("110.00");
    expect((await totals(co, order)).total).toBe("120.00");
    expect((await outboxRows(order)).map((r) => r.payload.changes.tax?.rate)).toEqual([undefined, "10", "20"]);
    expect((await eventsOf(co, order)).slice(-2)).toEqual(["order.updated", "order.updated"]);
  });

  it("an order write that read the tax at its old rate writes again under row locks with the new one", async () => {
    const co = await newCompany({ accountingSync: true });
    const tax = await create(co, { name: "Sales tax", rate: "10" });
    const order = await taxedOrder(co, null);
    // The rate changes (here, by a transaction holding the tax row) after the order write read it.
    const held = await holdRow("taxes", tax.id);
    const patching = co.patch(`/orders/${order}`, { tax_id: tax.id });
    await held.blocked(1);
    await held.release({ text: "update taxes set rate = 20 where id = $1", params: [tax.id] });
    const patched = await patching;
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.invoice.totals.total).toBe("120.00");
    expect((await outboxRows(order)).map((r) => r.payload.changes.tax?.rate)).toEqual([undefined, "20"]);
  });

  describe("all or nothing", () => {
    // A deferred constraint trigger refuses the commit of any transaction that wrote an outbox row for a
    // marked company: a failure after every part of the statement ran.
    beforeAll(async () => {
      await sql("create table if not exists test_tax_commit_failures (company_id int primary key)");
      await sql(`create or replace function test_tax_fail_at_commit() returns trigger language plpgsql as $$
        begin
          if exists (select 1 from test_tax_commit_failures where company_id = new.company_id) then
            raise exception 'test: commit refused for company %', new.company_id;
          end if;
          return null;
        end $$`);
      await sql("drop trigger if exists test_tax_fail_at_commit on accounting_outbox");
      await sql(
        "create constraint trigger test_tax_fail_at_commit after insert on accounting_outbox deferrable initially deferred for each row execute function test_tax_fail_at_commit()",
      );
    });
    afterAll(async () => {
      await sql("drop trigger if exists test_tax_fail_at_commit on accounting_outbox");
    });

    it("a rate change that fails at commit leaves the tax, its orders, outbox and events as they were", async () => {
      const co = await newCompany({ accountingSync: true });
      const tax = await create(co, { name: "Sales tax", rate: "10" });
      const orders = [await taxedOrder(co, tax.id), await taxedOrder(co, tax.id)];
      const snapshot = async () => ({
        rows: await Promise.all(orders.map(orderRows)),
        outbox: await Promise.all(orders.map(outboxRows)),
        events: await webhookEvents(co.companyId),
      });
      // Every event's payload is filled after its change's commit: settled before the comparison.
      await waitFor(
        "the orders' event payloads",
        () => sql("select 1 from webhook_events where company_id = $1 and payload is null", [co.companyId]),
        (rows) => rows.length === 0,
      );
      const before = await snapshot();
      await sql("insert into test_tax_commit_failures values ($1)", [co.companyId]);
      expectError(await co.patch(`/taxes/${tax.id}`, { rate: "20" }), 500, "internal_error");
      expect((await co.get("/taxes")).body.data[0].rate).toBe("10");
      expect(await snapshot()).toEqual(before);
    });
  });
});

describe("DELETE /taxes/{id}", () => {
  it("409 with the number of live invoices that have it; once none do, removes it (deleted orders keep their totals with it)", async () => {
    const co = await newCompany();
    const tax = await create(co, { name: "Sales tax", rate: "10" });
    const kept = await taxedOrder(co, tax.id);
    const gone = await taxedOrder(co, tax.id);
    expect(expectError(await co.del(`/taxes/${tax.id}`), 409, "conflict").details).toEqual({ live_invoices: 2 });
    expect((await co.del(`/orders/${gone}`)).status).toBe(200);
    expect(expectError(await co.del(`/taxes/${tax.id}`), 409, "conflict").details).toEqual({ live_invoices: 1 });
    expect((await co.patch(`/orders/${kept}`, { tax_id: null })).status).toBe(200);
    const res = await co.del(`/taxes/${tax.id}`);
    expect(res.body).toEqual({ deleted: true, id: tax.id });
    expect((await co.get("/taxes")).body.data).toEqual([]);
    expectError(await co.del(`/taxes/${tax.id}`), 404, "not_found");
    // An order can no longer be given it; the deleted order's tombstone still counts it.
    const refused = expectError(await co.patch(`/orders/${kept}`, { tax_id: tax.id }), 400, "invalid_request");
    expect(refused.details).toEqual([{ field: "tax_id", message: "No such tax in your company" }]);
    const tombstone = (await co.get("/orders?include_deleted=true")).body.data.find((o: any) => o.id === gone);
    expect(tombstone.total).toBe("110.00");
  });
});

describe("taxes between two companies", () => {
  it("company B neither sees, changes, deletes nor uses company A's tax: the answers for a tax that does not exist", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const tax = await create(a, { name: "A's tax", rate: "7" });
    const aOrder = await taxedOrder(a, tax.id);
    const before = { rows: await orderRows(aOrder), tax: await sql("select * from taxes where id = $1", [tax.id]) };
    expect((await b.get("/taxes")).body).toEqual({ data: [] });
    const same = asRequest("foreign-or-missing");
    for (const [foreign, missing] of [
      [() => b.patch(`/taxes/${tax.id}`, { rate: 1 }, same), () => b.patch("/taxes/2147483000", { rate: 1 }, same)],
      [() => b.del(`/taxes/${tax.id}`, same), () => b.del("/taxes/2147483000", same)],
    ]) {
      const [f, m] = [await foreign(), await missing()];
      expectError(f, 404, "not_found");
      expect(f.body).toEqual(m.body);
    }
    const order = await newOrder(b);
    const used = await b.patch(`/orders/${order.project.id}`, { tax_id: tax.id }, same);
    const absent = await b.patch(`/orders/${order.project.id}`, { tax_id: 2147483000 }, same);
    expectError(used, 400, "invalid_request");
    expect(used.body).toEqual(absent.body);
    expect({ rows: await orderRows(aOrder), tax: await sql("select * from taxes where id = $1", [tax.id]) }).toEqual(before);
  });
});
