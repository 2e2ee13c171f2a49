import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, newCompany, sql } from "../../../test/support/api";
import { newClient, newOrder, orderRows, outboxRows } from "../../../test/support/orders";

const flags = [
  { company: false, request: undefined, syncs: false },
  { company: true, request: undefined, syncs: true },
  { company: true, request: false, syncs: false },
  { company: false, request: true, syncs: true },
] as const;
const label = (f: (typeof flags)[number]) => `company ${f.company}, request ${f.request ?? "omitted"}`;
const withFlag = (request: boolean | undefined) => (request === undefined ? {} : { quickbooks_enabled: request });

describe("accounting outbox rows", () => {
  it.each(flags)("POST writes a create row exactly when sync applies ($company / $request)", async (f) => {
    const co = await newCompany({ accountingSync: f.company });
    const { project, invoice } = await newOrder(co, withFlag(f.request));
    const rows = await outboxRows(project.id);
    if (!f.syncs) return expect(rows, label(f)).toEqual([]);
    expect(rows).toEqual([
      { id: expect.any(Number), operation: "create", payload: {}, invoice_id: invoice.id, company_id: co.companyId, status: "pending" },
    ]);
  });

  it.each(flags)("PATCH writes a sparse update row exactly when sync applies ($company / $request)", async (f) => {
    const co = await newCompany({ accountingSync: f.company });
    const { project, invoice } = await newOrder(co, { quickbooks_enabled: false });
    const res = await co.patch(`/orders/${project.id}`, { description: "Rush", ...withFlag(f.request) });
    expect(res.status).toBe(200);
    const rows = await outboxRows(project.id);
    if (!f.syncs) return expect(rows, label(f)).toEqual([]);
    expect(rows).toEqual([
      {
        id: expect.any(Number),
        operation: "update",
        payload: { changes: { private_note: "Rush" } },
        invoice_id: invoice.id,
        company_id: co.companyId,
        status: "pending",
      },
    ]);
  });

  it("the update payload maps every accounting field, with full discount and tax state", async () => {
    const co = await newCompany({ accountingSync: true });
    const ids = await co.load({
      clients: [
        { ref: "c1", company_name: "Old customer" },
        { ref: "c2", company_name: "New customer" },
      ],
      taxes: [{ ref: "t", name: "County", rate: "7.2500" }],
      orders: [{ ref: "o", client_ref: "c1", title: "Tees" }],
    });
    await co.patch(`/orders/${ids.o}`, {
      title: "Not synced",
      status_id: null,
      start_date: "soon",
      description: null,
      deadline: "2026-12-31",
      client_id: ids.c2,
      client_notes: "Thank you!",
      discount_amount: 15,
      discount_amount_type: "amount",
      tax_id: ids.t,
    });
    await co.patch(`/orders/${ids.o}`, { discount_type: "after_tax", tax_exempt: true });
    await co.patch(`/orders/${ids.o}`, { tax_id: 0 });
    // The import made the order as POST /orders does: its `create` row comes first (sync is on).
    const [created, ...rows] = await outboxRows(ids.o);
    expect(created).toMatchObject({ operation: "create", payload: {} });
    expect(rows.map((r) => r.payload)).toEqual([
      {
        changes: {
          private_note: null,
          due_date: "2026-12-31",
          client_id: ids.c2,
          customer_memo: "Thank you!",
          discount: { amount: "15.00", amount_type: "fixed_amount", discount_type: "before_tax" },
          tax: { tax_id: ids.t, rate: "7.25", tax_exempt: false },
        },
      },
      {
        changes: {
          discount: { amount: "15.00", amount_type: "fixed_amount", discount_type: "after_tax" },
          tax: { tax_id: ids.t, rate: "7.25", tax_exempt: true },
        },
      },
      { changes: { tax: { tax_id: null, rate: null, tax_exempt: true } } },
    ]);
  });

  it("a PATCH of fields the accounting system does not hold (title, status, start date) writes no row", async () => {
    const co = await newCompany({ accountingSync: true });
    const { project } = await newOrder(co, { quickbooks_enabled: false });
    expect((await co.patch(`/orders/${project.id}`, { title: "Renamed", start_date: "Monday" })).status).toBe(200);
    expect(await outboxRows(project.id)).toEqual([]);
  });

  it.each([true, false])("DELETE writes a delete row exactly when the company syncs (%s)", async (company) => {
    const co = await newCompany({ accountingSync: company });
    const { project, invoice } = await newOrder(co, { quickbooks_enabled: false });
    expect((await co.del(`/orders/${project.id}`)).status).toBe(200);
    const rows = await outboxRows(project.id);
    expect(rows).toEqual(
      company ? [expect.objectContaining({ operation: "delete", payload: {}, invoice_id: invoice.id, company_id: co.companyId })] : [],
    );
  });

  it("DELETE also syncs an order that was synced before, whatever the company flag", async () => {
    const co = await newCompany({ accountingSync: false });
    const { project, invoice } = await newOrder(co, { quickbooks_enabled: true });
    expect((await co.del(`/orders/${project.id}`)).status).toBe(200);
    expect((await outboxRows(project.id)).map((r) => [r.operation, r.invoice_id])).toEqual([
      ["create", invoice.id],
      ["delete", invoice.id],
    ]);
  });

  it("rejected requests write no row, even when sync applies", async () => {
    const a = await newCompany({ accountingSync: true });
    const b = await newCompany({ accountingSync: true });
    const { project } = await newOrder(b, { quickbooks_enabled: false });
    const theirs = await newOrder(a, { quickbooks_enabled: false });
    expectError(
      await b.patch(`/orders/${project.id}`, { description: "x", status_id: 2_000_000_000, quickbooks_enabled: true }),
      400,
      "invalid_request",
    );
    expectError(await b.patch(`/orders/${theirs.project.id}`, { description: "x" }), 404, "not_found");
    expectError(await b.del(`/orders/${theirs.project.id}`), 404, "not_found");
    expectError(await b.post("/orders", { title: "x", client_id: theirs.project.client_id }), 400, "invalid_request");
    const rows = await sql("select project_id from accounting_outbox where company_id = any($1)", [[a.companyId, b.companyId]]);
    expect(rows).toEqual([]);
  });

  describe("when the transaction fails at commit, after the outbox row was written", () => {
    // A deferred constraint trigger refuses the commit of any transaction that wrote an outbox row for a marked
    // company: a real database failure after every statement of the request (including the outbox insert) ran.
    beforeAll(async () => {
      await sql("create table if not exists test_commit_failures (company_id int primary key)");
      await sql(`create or replace function test_fail_at_commit() returns trigger language plpgsql as $$
        begin
          if exists (select 1 from test_commit_failures where company_id = new.company_id) then
            raise exception 'test: commit refused for company %', new.company_id;
          end if;
          return null;
        end $$`);
      await sql("drop trigger if exists test_fail_at_commit on accounting_outbox");
      await sql(
        "create constraint trigger test_fail_at_commit after insert on accounting_outbox deferrable initially deferred for each row execute function test_fail_at_commit()",
      );
    });
    afterAll(async () => {
      await sql("drop trigger if exists test_fail_at_commit on accounting_outbox");
    });
    const refuseCommits = (companyId: number) => sql("insert into test_commit_failures values ($1)", [companyId]);

    it("POST: 500, and no project, invoice or outbox row", async () => {
      const co = await newCompany({ accountingSync: true });
      const clientId = await newClient(co);
      await refuseCommits(co.companyId);
      expectError(await co.post("/orders", { title: "Doomed", client_id: clientId }), 500, "internal_error");
      const counts = await sql(
        `select (select count(*) from projects where company_id = $1)::int projects, (select count(*) from invoices where company_id = $1)::int invoices,
                (select count(*) from accounting_outbox where company_id = $1)::int outbox`,
        [co.companyId],
      );
      expect(counts).toEqual([{ projects: 0, invoices: 0, outbox: 0 }]);
    });

    it("PATCH and DELETE: 500, the order is unchanged and no outbox row exists", async () => {
      const co = await newCompany({ accountingSync: true });
      const { project } = await newOrder(co, { quickbooks_enabled: false });
      const before = await orderRows(project.id);
      await refuseCommits(co.companyId);
      expectError(await co.patch(`/orders/${project.id}`, { description: "Doomed", client_notes: "x" }), 500, "internal_error");
      expectError(await co.del(`/orders/${project.id}`), 500, "internal_error");
      expect(await orderRows(project.id)).toEqual(before);
      expect(await outboxRows(project.id)).toEqual([]);
      expect((await co.get(`/orders/${project.id}`)).status).toBe(200);
      // Sanity: the same request without sync commits, so the failure above came from the outbox write.
      expect((await co.patch(`/orders/${project.id}`, { description: "Fine", quickbooks_enabled: false })).status).toBe(200);
    });
  });
});
