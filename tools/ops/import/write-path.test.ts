import { describe, expect, it } from "vitest";
import { newCompany, sql, type TestCompany, waitFor } from "../../../test/support/api";

/** What a company's rows say about how they were made: the events, the outbox rows, the list counters. */
async function trail(co: TestCompany) {
  await waitFor(
    "payloads filled after commit",
    () => sql("select 1 from webhook_events where company_id = $1 and payload is null", [co.companyId]),
    (rows) => rows.length === 0,
  );
  const events = await sql<{ type: string; payload: any }>("select type, payload from webhook_events where company_id = $1 order by id", [
    co.companyId,
  ]);
  const outbox = await sql<{ operation: string; payload: unknown; status: string }>(
    "select operation, payload, status from accounting_outbox where company_id = $1 order by id",
    [co.companyId],
  );
  const counted = await sql<{ list: string; n: number }>(
    "select list, sum(n)::int n from list_counts where company_id = $1 group by list order by list",
    [co.companyId],
  );
  // Ids and times differ from company to company: the shape of each event's object is compared.
  const shape = (o: any): unknown =>
    o && typeof o === "object"
      ? Object.fromEntries(Object.entries(o).map(([k, v]) => [k, /(^id$|_id$|_at$)/.test(k) ? typeof v : shape(v)]))
      : o;
  return { events: events.map((e) => [e.type, shape(e.payload.data.object)]), outbox, counted };
}

describe("import through the API's write path", () => {
  it("an imported client and order (with contents) leave what the API's batch leaves: events with their payloads, outbox rows, counters", async () => {
    const imported = await newCompany({ accountingSync: true });
    const viaApi = await newCompany({ accountingSync: true });
    const client = { company_name: "Riverbend", email: "coach@riverbend.example", external_id: "c-1", metadata: { crm: "old" } };
    const order = {
      title: "Jerseys",
      external_id: "o-1",
      items: [{ title: "Jersey", unit_price: "20.00", sizes: { M: 4, L: 2 } }],
      payments: [{ amount: "50.00", paid_date: "2026-10-01" }],
      artworks: [{ print_method: "screen_print", placements: ["front"] }],
    };
    const withRefs = <T>(rows: T[], prefix: string) => rows.map((row, i) => ({ ref: `${prefix}${i}`, ...row }));
    await imported.load({
      clients: [{ ref: "c", ...client }],
      orders: [
        {
          ref: "o",
          client_ref: "c",
          ...order,
          items: withRefs(order.items, "i"),
          payments: withRefs(order.payments, "p"),
          artworks: withRefs(order.artworks, "a"),
        },
      ],
    });
    const clients = await viaApi.post("/clients/batch", { items: [{ method: "create", data: client }] });
    const clientId = clients.body.data[0].body.client.id;
    const orders = await viaApi.post("/orders/batch", { items: [{ method: "create", data: { ...order, client_id: clientId } }] });
    expect(orders.body.data[0].status).toBe(200);
    const [a, b] = [await trail(imported), await trail(viaApi)];
    expect(a).toEqual(b);
    expect(a.events.map(([type]) => type)).toEqual(["client.created", "order.created"]);
    expect(a.outbox.map((o) => o.operation)).toEqual(["create"]);
    expect(a.counted).toEqual(
      expect.arrayContaining([
        { list: "clients", n: 1 },
        { list: "orders", n: 1 },
      ]),
    );
    // The imported rows read back exactly as the API-made ones do.
    const read = async (co: TestCompany) => {
      const [o] = (await co.get("/orders?external_id=o-1")).body.data;
      const full = (await co.get(`/orders/${o.id}`)).body;
      return {
        total: full.invoice.totals,
        items: full.invoice_items.length,
        external: full.project.external_id,
        metadata: full.client.metadata,
      };
    };
    expect(await read(imported)).toEqual(await read(viaApi));
  });

  it("an import that refuses a record writes nothing, events and outbox rows included; an external id taken is refused by name", async () => {
    const co = await newCompany({ accountingSync: true });
    await co.post("/clients", { company_name: "Holder", external_id: "taken" });
    const before = await trail(co);
    await expect(
      co.load({
        clients: [
          { ref: "ok", company_name: "Fine" },
          { ref: "bad", company_name: "Clash", external_id: "taken" },
        ],
      }),
    ).rejects.toThrow(/clients\[1\]\.external_id: Already the external id of client/);
    expect(await trail(co)).toEqual(before);
  });
});
