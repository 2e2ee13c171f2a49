import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { asRequest, expectError, newCompany, sql, type TestCompany } from "../../../test/support/api";
import { newClient, newOrder, orderRows, outboxRows } from "../../../test/support/orders";

/** An order with a 100.00 line, plus a status and a 10 % tax row of the same company. */
async function arrange(co: TestCompany) {
  return co.load({
    clients: [
      { ref: "c", company_name: "Sunrise Bakery & Cafe" },
      { ref: "c2", company_name: "Riverbend Athletics" },
    ],
    order_statuses: [{ ref: "s", name: "Printing" }],
    taxes: [{ ref: "t", name: "Sales tax", rate: "10" }],
    orders: [
      { ref: "o", client_ref: "c", title: "Aprons", items: [{ ref: "i", title: "Embroidered apron", quantity: 4, unit_price: "25.00" }] },
    ],
  });
}

describe("PATCH /orders/{id}", () => {
  it("updates project fields on the project and invoice fields on the default invoice, with fresh totals", async () => {
    const co = await newCompany();
    const ids = await arrange(co);
    const res = await co.patch(`/orders/${ids.o}`, {
      title: "Aprons (rush)",
      description: "Logo left chest",
      start_date: "2026-11-20",
      deadline: "2026-12-01",
      client_id: ids.c2,
      status_id: ids.s,
      client_notes: "Pickup at the back door",
      tax_id: ids.t,
      tax_exempt_reason: null,
      discount_amount: "10",
      discount_amount_type: "percentage",
      discount_type: "before_tax",
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["invoice", "project"]);
    expect(res.body.project).toMatchObject({
      id: ids.o,
      title: "Aprons (rush)",
      description: "Logo left chest",
      start_date: "2026-11-20",
      deadline: "2026-12-01",
      client_id: ids.c2,
      status_id: ids.s,
    });
    expect(res.body.invoice).toMatchObject({
      project_id: ids.o,
      client_id: ids.c2,
      due_date: "2026-12-01",
      client_notes: "Pickup at the back door",
      tax_id: ids.t,
      discount_amount: "10.00",
      discount_amount_type: "percentage",
      totals: { subtotal: "100.00", discount: "10.00", tax: "9.00", total: "99.00", amount_paid: "0.00", balance_due: "99.00" },
    });
    const rows = await sql(
      "select p.title, p.client_id, p.status_id, p.deadline::text, i.client_id invoice_client_id, i.due_date::text, i.tax_id from projects p join invoices i on i.project_id = p.id where p.id = $1",
      [ids.o],
    );
    expect(rows).toEqual([
      {
        title: "Aprons (rush)",
        client_id: ids.c2,
        status_id: ids.s,
        deadline: "2026-12-01",
        invoice_client_id: ids.c2,
        due_date: "2026-12-01",
        tax_id: ids.t,
      },
    ]);
    const get = await co.get(`/orders/${ids.o}`);
    expect(get.body.invoice).toEqual(res.body.invoice);
    expect(get.body.project).toEqual(res.body.project);
  });

  it("changes only what is sent: a project-only PATCH leaves the invoice row untouched", async () => {
    const co = await newCompany();
    const ids = await arrange(co);
    const before = await orderRows(ids.o);
    await co.patch(`/orders/${ids.o}`, { status_id: ids.s });
    const after = await orderRows(ids.o);
    expect(after.invoices).toEqual(before.invoices);
    expect(after.project).toMatchObject({ ...before.project, status_id: ids.s, updated_at: expect.any(Date) });
    expect((after.project.updated_at as Date).getTime()).toBeGreaterThan((before.project.updated_at as Date).getTime());
  });

  it("accepts the aliases fixed and amount and stores fixed_amount", async () => {
    const co = await newCompany();
    const ids = await arrange(co);
    for (const alias of ["fixed", "amount", "fixed_amount"]) {
      await co.patch(`/orders/${ids.o}`, { discount_amount_type: "percentage", discount_amount: 0 });
      const res = await co.patch(`/orders/${ids.o}`, { discount_amount_type: alias, discount_amount: 150 });
      expect(res.status, alias).toBe(200);
      expect(res.body.invoice).toMatchObject({
        discount_amount_type: "fixed_amount",
        discount_amount: "150.00",
        totals: { discount: "100.00", total: "0.00" },
      });
      expect((await orderRows(ids.o)).invoices[0].discount_amount_type).toBe("fixed_amount");
    }
    expectError(await co.patch(`/orders/${ids.o}`, { discount_amount_type: "flat" }), 400, "invalid_request");
  });

  it("keeps percentages within 0–100 (also against the stored type) and amounts non-negative and exact", async () => {
    const co = await newCompany();
    const ids = await arrange(co);
    const field = async (body: unknown) =>
      expectError(await co.patch(`/orders/${ids.o}`, body), 400, "invalid_request").details.map((d: any) => d.field);
    expect(await field({ discount_amount: 100.01, discount_amount_type: "percentage" })).toEqual(["discount_amount"]);
    expect(await field({ discount_amount: 101 })).toEqual(["discount_amount"]); // stored type is percentage
    expect(await field({ discount_amount: -1 })).toEqual(["discount_amount"]);
    expect(await field({ discount_amount: "12.345" })).toEqual(["discount_amount"]);
    expect(await field({ discount_amount: "1e3" })).toEqual(["discount_amount"]);
    expect(await field({ discount_amount: true })).toEqual(["discount_amount"]);
    expect((await co.patch(`/orders/${ids.o}`, { discount_amount: 250, discount_amount_type: "fixed" })).status).toBe(200);
    expect(await field({ discount_amount_type: "percentage" })).toEqual(["discount_amount_type"]); // stored 250 would become 250 %
    expect((await co.patch(`/orders/${ids.o}`, { discount_amount: 100, discount_amount_type: "percentage" })).status).toBe(200);
    expect((await co.patch(`/orders/${ids.o}`, { discount_amount: 0 })).status).toBe(200);
  });

  it("tax_id 0 or null removes the tax; discount_type switches the order of discount and tax", async () => {
    const co = await newCompany();
    const ids = await arrange(co);
    const after = await co.patch(`/orders/${ids.o}`, { tax_id: ids.t, discount_amount: 10, discount_type: "after_tax" });
    expect(after.body.invoice.totals).toMatchObject({ tax: "10.00", discount: "11.00", total: "99.00" });
    for (const tax_id of [0, null]) {
      await co.patch(`/orders/${ids.o}`, { tax_id: ids.t });
      const res = await co.patch(`/orders/${ids.o}`, { tax_id });
      expect(res.body.invoice).toMatchObject({ tax_id: null, totals: { tax: "0.00" } });
    }
  });

  it("rejects an empty body, a body with only quickbooks_enabled, unknown fields and bad values, naming each field", async () => {
    const co = await newCompany();
    const { project } = await newOrder(co);
    const fields = async (body: unknown) =>
      expectError(await co.patch(`/orders/${project.id}`, body), 400, "invalid_request")
        .details.map((d: any) => d.field)
        .sort();
    expect(await fields({})).toEqual(["(body)"]);
    expect(await fields({ quickbooks_enabled: true })).toEqual(["(body)"]);
    expect(await fields({ title: "x", invoice_id: 3, company: 1 })).toEqual(["company", "invoice_id"]);
    expect(await fields({ deadline: "2026-02-30", title: "" })).toEqual(["deadline", "title"]);
    expect(await fields({ status_id: "3", tax_id: -1, client_id: null, discount_type: "later" })).toEqual([
      "client_id",
      "discount_type",
      "status_id",
      "tax_id",
    ]);
    expectError(
      await co.patch(`/orders/${project.id}`, undefined, { rawBody: "[1]", headers: { "content-type": "application/json" } }),
      400,
      "invalid_request",
    );
  });

  it("a failed PATCH (another company's status, tax or client) changes neither project nor invoice", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const theirs = await arrange(a);
    const ids = await arrange(b);
    const before = await orderRows(ids.o);
    const deletedClient = await newClient(b);
    await b.patch(`/clients/${deletedClient}`, { deleted: true });

    const res = await b.patch(
      `/orders/${ids.o}`,
      { title: "Changed", deadline: "2027-01-01", client_notes: "x", status_id: theirs.s },
      asRequest("foreign-or-missing"),
    );
    const err = expectError(res, 400, "invalid_request");
    expect(err.details).toEqual([{ field: "status_id", message: "No such order status in your company" }]);
    const missing = await b.patch(
      `/orders/${ids.o}`,
      {
        title: "Changed",
        deadline: "2027-01-01",
        client_notes: "x",
        status_id: 2_000_000_000,
      },
      asRequest("foreign-or-missing"),
    );
    expect(missing.body).toEqual(res.body);

    const all = expectError(
      await b.patch(`/orders/${ids.o}`, { title: "Changed", status_id: theirs.s, tax_id: theirs.t, client_id: theirs.c }),
      400,
      "invalid_request",
    );
    expect(all.details.map((d: any) => d.field)).toEqual(["client_id", "status_id", "tax_id"]);
    const deleted = expectError(await b.patch(`/orders/${ids.o}`, { client_id: deletedClient, title: "Changed" }), 400, "invalid_request");
    expect(deleted.details).toEqual([{ field: "client_id", message: "No such client in your company" }]);
    expect(await orderRows(ids.o)).toEqual(before);
  });

  it("another company's order answers exactly like a missing one, and is unchanged", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const ids = await arrange(a);
    const before = await orderRows(ids.o);
    const foreign = await b.patch(`/orders/${ids.o}`, { title: "Hijacked" }, asRequest("foreign-or-missing"));
    const missing = await b.patch("/orders/2000000000", { title: "Hijacked" }, asRequest("foreign-or-missing"));
    expectError(foreign, 404, "not_found");
    expect(foreign.body).toEqual(missing.body);
    expect(await orderRows(ids.o)).toEqual(before);
  });

  it("deadline null clears the deadline and the invoice due date", async () => {
    const co = await newCompany();
    const { project } = await newOrder(co);
    await co.patch(`/orders/${project.id}`, { deadline: "2026-12-24" });
    const res = await co.patch(`/orders/${project.id}`, { deadline: null });
    expect(res.body.project.deadline).toBeNull();
    expect(res.body.invoice.due_date).toBeNull();
  });

  describe("racing another writer: validated and written against the row that writer committed", () => {
    /**
     * Runs `change` in a transaction on its own connection (holding the invoice row lock), sends the PATCH,
     * waits until the PATCH's write is waiting for that lock (so it has already read the old row), then commits.
     */
    async function patchDuring(co: TestCompany, orderId: number, change: string, body: unknown) {
      const other = new pg.Client({ connectionString: inject("databaseUrl") });
      await other.connect();
      try {
        await other.query("begin");
        await other.query(`update invoices set ${change} where project_id = $1`, [orderId]);
        const pending = co.patch(`/orders/${orderId}`, body);
        const waiting = async () =>
          (
            await sql(
              "select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like 'with \"locked\"%' and pid <> pg_backend_pid()",
            )
          ).length > 0;
        while (!(await waiting())) await new Promise((resolve) => setTimeout(resolve, 10));
        await other.query("commit");
        return await pending;
      } finally {
        await other.end();
      }
    }

    it("re-checks a percentage against the amount the other writer stored", async () => {
      const co = await newCompany();
      const { project } = await newOrder(co);
      // The PATCH reads 0 % (valid); the other writer then commits a fixed 250.00, so the type change must fail.
      const res = await patchDuring(co, project.id, "discount_amount = 250, discount_amount_type = 'fixed_amount'", {
        discount_amount_type: "percentage",
      });
      expect(expectError(res, 400, "invalid_request").details).toEqual([
        { field: "discount_amount_type", message: "A percentage discount must be between 0 and 100" },
      ]);
      expect((await orderRows(project.id)).invoices[0]).toMatchObject({ discount_amount: "250.00", discount_amount_type: "fixed_amount" });
    });

    it("keeps the other writer's change and reports the state after both in the outbox row", async () => {
      const co = await newCompany({ accountingSync: true });
      const { project } = await newOrder(co, { quickbooks_enabled: false });
      const res = await patchDuring(co, project.id, "discount_type = 'after_tax'", { discount_amount: 5 });
      expect(res.status).toBe(200);
      expect(res.body.invoice).toMatchObject({ discount_amount: "5.00", discount_amount_type: "percentage", discount_type: "after_tax" });
      expect((await orderRows(project.id)).invoices[0]).toMatchObject({ discount_amount: "5.00", discount_type: "after_tax" });
      expect((await outboxRows(project.id)).map((r) => r.payload)).toEqual([
        { changes: { discount: { amount: "5.00", amount_type: "percentage", discount_type: "after_tax" } } },
      ]);
    });
  });
});
