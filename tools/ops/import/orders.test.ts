import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { db, newCompany, sql } from "../../../test/support/api";
import { main } from "../../cli/admin";
import { createOrderStatus, createTax, importFile } from "../commands";
import { CommandError } from "../errors";

describe("import: order_statuses, taxes, orders (nested items, payments, artworks)", () => {
  it("creates orders with their default invoice and nested records, resolving refs", async () => {
    const co = await newCompany();
    const ids = await co.load({
      clients: [{ ref: "school", company_name: "Riverbend High", tax_exempt: true, tax_exempt_reason: "School district" }],
      order_statuses: [
        { ref: "quote", name: "Quote" },
        { ref: "prod", name: "In production", position: 10 },
        { ref: "done", name: "Shipped" },
      ],
      taxes: [{ ref: "tax", name: "State", rate: 6.5 }],
      orders: [
        {
          ref: "o1",
          client_ref: "school",
          title: "Booster club hoodies",
          status_ref: "prod",
          created_at: "2026-01-15T09:30:00-05:00",
          deadline: "2026-02-01",
          invoice: { tax_ref: "tax", client_notes: "PO 7781" },
          items: [{ ref: "o1-i1", title: "Hoodie", unit_price: "32.00", sizes: { S: 5, M: 10, L: 7 } }],
          payments: [{ ref: "o1-p1", amount: "100.00", paid_date: "2026-01-20", method: "check", reference: "1001" }],
          artworks: [{ ref: "o1-a1", print_method: "screen_print", placements: ["front"], colors: ["Navy"], status: "approved" }],
        },
      ],
    });
    expect(Object.keys(ids).sort()).toEqual(["done", "o1", "o1-a1", "o1-i1", "o1-p1", "prod", "quote", "school", "tax"].sort());
    const statuses = await sql("select id, name, position from order_statuses where company_id = $1 order by id", [co.companyId]);
    // Positions stay dense (as POST /statuses keeps them): 10 is past the end, so last.
    expect(statuses).toEqual([
      { id: ids.quote, name: "Quote", position: 0 },
      { id: ids.prod, name: "In production", position: 2 },
      { id: ids.done, name: "Shipped", position: 1 },
    ]);
    const { body } = await co.get(`/orders/${ids.o1}`);
    expect(body.project).toMatchObject({ status_id: ids.prod, deadline: "2026-02-01", created_at: "2026-01-15T14:30:00.000Z" });
    expect(body.invoice).toMatchObject({
      due_date: "2026-02-01",
      tax_id: ids.tax,
      tax_exempt: true, // from the client
      tax_exempt_reason: "School district",
      client_notes: "PO 7781",
      created_at: "2026-01-15T14:30:00.000Z",
      totals: { subtotal: "704.00", tax: "0.00", total: "704.00", amount_paid: "100.00", balance_due: "604.00" },
    });
    expect(body.invoice_items[0]).toMatchObject({ id: ids["o1-i1"], quantity: "22", sizes: { S: 5, M: 10, L: 7 } });
    expect(body.payments[0]).toMatchObject({ id: ids["o1-p1"], paid_date: "2026-01-20", reference: "1001" });
    expect(body.artworks[0]).toMatchObject({
      id: ids["o1-a1"],
      print_method: "screen_print",
      placements: ["front"],
      colors: ["Navy"],
      preview_url: null,
    });
    expect(body.tax).toEqual({ id: ids.tax, name: "State", rate: "6.5" });
    const outbox = await sql("select 1 from accounting_outbox where project_id = $1", [ids.o1]);
    expect(outbox).toEqual([]);
  });

  it("accepts client_id / status_id / tax_id of the importing company", async () => {
    const co = await newCompany();
    const first = await co.load({
      clients: [{ ref: "c", company_name: "C" }],
      order_statuses: [{ ref: "s", name: "S" }],
      taxes: [{ ref: "t", name: "T", rate: "5" }],
    });
    const ids = await co.load({
      orders: [
        {
          ref: "o",
          client_id: first.c,
          status_id: first.s,
          title: "By id",
          invoice: { tax_id: first.t, discount_amount: 5, discount_amount_type: "fixed" },
        },
      ],
    });
    const { body } = await co.get(`/orders/${ids.o}`);
    expect(body.project).toMatchObject({ client_id: first.c, status_id: first.s });
    expect(body.invoice).toMatchObject({ tax_id: first.t, discount_amount: "5.00", discount_amount_type: "fixed_amount" });
  });

  it("refuses another company's client, status or tax, unknown refs and bad records, importing nothing", async () => {
    const a = await newCompany();
    const theirs = await a.load({
      clients: [{ ref: "c", company_name: "A" }],
      order_statuses: [{ ref: "s", name: "S" }],
      taxes: [{ ref: "t", name: "T", rate: 1 }],
    });
    const b = await newCompany();
    const good = { ref: "ok", client_ref: "mine", title: "Fine" };
    const cases: [unknown, RegExp][] = [
      [{ ref: "x", client_id: theirs.c, title: "x" }, /orders\[1\]\.client_id: No such client in your company/],
      [{ ref: "x", client_ref: "mine", status_id: theirs.s, title: "x" }, /orders\[1\]\.status_id: No such order status in your company/],
      [
        { ref: "x", client_ref: "mine", title: "x", invoice: { tax_id: theirs.t } },
        /orders\[1\]\.invoice\.tax_id: No such tax in your company/,
      ],
      [{ ref: "x", client_ref: "nobody", title: "x" }, /unknown ref "nobody"/],
      [{ ref: "x", title: "x" }, /client_ref/],
      [{ ref: "x", client_ref: "mine", client_id: 1, title: "x" }, /client_ref/],
      [{ ref: "x", client_ref: "mine", title: "x", invoice: { discount_amount: 120 } }, /orders\[1\]\.invoice\.discount_amount/],
      [
        { ref: "x", client_ref: "mine", title: "x", items: [{ ref: "i", title: "t", unit_price: "1.005" }] },
        /orders\[1\]\.items\.0\.unit_price/,
      ],
      [{ ref: "x", client_ref: "mine", title: "x", payments: [{ amount: 5 }] }, /orders\[1\]\.payments\.0\.ref/],
      [
        { ref: "x", client_ref: "mine", title: "x", items: [{ ref: "i", title: "t", unit_price: "1", quantity: 3, sizes: { S: 2 } }] },
        /orders\[1\]\.items\.0\.quantity: quantity must equal the sum of sizes/,
      ],
      [
        { ref: "x", client_ref: "mine", title: "x", items: [{ ref: "i", title: "t", unit_price: "1", sizes: { Medium: 2 } }] },
        /orders\[1\]\.items\.0\.sizes\.Medium: Unknown size/,
      ],
      [{ ref: "x", client_ref: "mine", title: "x", artworks: [{ ref: "a", status: "pending" }] }, /orders\[1\]\.artworks\.0\.status/],
      [
        { ref: "x", client_ref: "mine", title: "x", artworks: [{ ref: "a", preview_url: "file:///etc/passwd" }] },
        /orders\[1\]\.artworks\.0\.preview_url/,
      ],
      [{ ref: "x", client_ref: "mine", title: "x", total: 5 }, /orders\[1\]\.total: Unknown field/],
      [{ ref: "ok", client_ref: "mine", title: "dup ref" }, /duplicate ref "ok"/],
    ];
    for (const [record, message] of cases) {
      const run = importFile(db(), {
        companyId: b.companyId,
        data: { clients: [{ ref: "mine", company_name: "B" }], orders: [good, record] },
      });
      await expect(run, JSON.stringify(record)).rejects.toThrow(message);
      await expect(run).rejects.toBeInstanceOf(CommandError);
    }
    const counts = await sql(
      "select (select count(*) from clients where company_id = $1)::int c, (select count(*) from projects where company_id = $1)::int p",
      [b.companyId],
    );
    expect(counts).toEqual([{ c: 0, p: 0 }]);
  });
});

describe("demo seed", () => {
  it("imports and every seeded order reads back with consistent totals", async () => {
    const co = await newCompany();
    const seed = JSON.parse(readFileSync(path.join(import.meta.dirname, "../demo-seed.json"), "utf8"));
    const ids = await co.load(seed);
    const list = await co.get("/orders");
    expect(list.body.pagination.total).toBe(seed.orders.length);
    for (const order of seed.orders) {
      const { status, body } = await co.get(`/orders/${ids[order.ref]}`);
      expect(status).toBe(200);
      expect(body.invoice_items).toHaveLength(order.items.length);
      expect(body.artworks).toHaveLength(order.artworks.length);
      expect(list.body.data.find((o: any) => o.id === ids[order.ref]).balance_due).toBe(body.invoice.totals.balance_due);
    }
    // Lakeside: 200 tees × 9.40 + 6.25 % tax, paid in full.
    expect((await co.get(`/orders/${ids["ord-runclub-race"]}`)).body.invoice.totals).toMatchObject({
      total: "1997.50",
      balance_due: "0.00",
    });
  });
});

describe("admin CLI: status create, tax create", () => {
  afterEach(() => vi.restoreAllMocks());

  it("creates statuses (positions follow the last) and taxes for a company", async () => {
    const co = await newCompany();
    expect(await createOrderStatus(db(), { companyId: co.companyId, name: "Quote" })).toEqual({ status_id: expect.any(Number) });
    const second = await createOrderStatus(db(), { companyId: co.companyId, name: "Approved" });
    const tax = await createTax(db(), { companyId: co.companyId, name: "NYC", rate: "8.875" });
    const rows = await sql("select position from order_statuses where id = $1", [second.status_id]);
    expect(rows).toEqual([{ position: 1 }]);
    expect(await sql("select company_id, name, rate::text from taxes where id = $1", [tax.tax_id])).toEqual([
      { company_id: co.companyId, name: "NYC", rate: "8.8750" },
    ]);
    await expect(createTax(db(), { companyId: co.companyId, name: "Bad", rate: "101" })).rejects.toThrow(/rate/);
    await expect(createTax(db(), { companyId: co.companyId, name: "Bad", rate: "abc" })).rejects.toThrow(/rate/);
    await expect(createOrderStatus(db(), { companyId: 2_000_000_000, name: "x" })).rejects.toThrow(/does not exist/);
  });

  it("prints one JSON object with the new id; bad input exits 1", async () => {
    const co = await newCompany();
    vi.stubEnv("DATABASE_URL", inject("databaseUrl"));
    const out: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void out.push(line));
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await main(["status", "create", "--company", String(co.companyId), "--name", "In production"])).toBe(0);
    expect(await main(["tax", "create", "--company", String(co.companyId), "--name", "State", "--rate", "6.25"])).toBe(0);
    const [status, tax] = out.map((l) => JSON.parse(l));
    expect(Object.keys(status)).toEqual(["status_id"]);
    expect(Object.keys(tax)).toEqual(["tax_id"]);
    expect(await sql("select name from order_statuses where id = $1 and company_id = $2", [status.status_id, co.companyId])).toEqual([
      { name: "In production" },
    ]);
    expect(await main(["tax", "create", "--company", String(co.companyId), "--name", "State", "--rate", "150"])).toBe(1);
    expect(await main(["tax", "create", "--company", String(co.companyId), "--name", "State"])).toBe(1);
    vi.unstubAllEnvs();
  });
});
