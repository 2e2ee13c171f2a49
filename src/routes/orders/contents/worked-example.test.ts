import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type FakeQbo, startFakeQbo } from "../../../../test/fakes/qbo";
import { call, db, newCompany, sql, waitFor } from "../../../../test/support/api";
import { type RunningWorker, startWorker } from "../../../../test/support/worker";
import { connectAccounting } from "../../../../tools/ops/accounting";

/**
 * The docs' worked example (docs/order-contents.md), through the API alone, on a Worker whose queue
 * consumer delivers to a fake QuickBooks Online: client → order → items with sizes → artwork approved
 * → deposit payment; then an item change resends the whole line array.
 */

let fake: FakeQbo;
let worker: RunningWorker;

beforeAll(async () => {
  fake = await startFakeQbo();
  worker = await startWorker({
    script: inject("workerScript"),
    bindings: { ...inject("workerBindings"), ACCOUNTING_RETRY_BASE_SECONDS: "0", ACCOUNTING_MAX_ATTEMPTS: "3" },
    logFile: path.join(inject("tmpDir"), "order-contents.log"),
  });
});

afterAll(async () => {
  await worker?.dispose();
  await fake?.stop();
});

const outboxDone = (projectId: number, count: number) =>
  waitFor(
    `${count} delivered accounting rows`,
    () => sql<{ status: string }>("select status from accounting_outbox where project_id = $1 order by id", [projectId]),
    (rows) => rows.length === count && rows.every((r) => r.status === "done"),
  );

describe("an order built through the API alone", () => {
  it("client → order → sized items → approved artwork → deposit: totals, balance, and the accounting lines", async () => {
    const co = await newCompany({ accountingSync: true });
    const creds = fake.addRealm(`realm-contents-${process.pid}`);
    await connectAccounting(db(), {
      companyId: co.companyId,
      realmId: creds.realm,
      clientId: creds.clientId,
      clientSecret: creds.clientSecret,
      refreshToken: creds.refreshToken,
      baseUrl: fake.url,
      tokenUrl: fake.tokenUrl,
    });
    const opts = { baseUrl: `${worker.url}/api/v1` };

    const client = await co.post("/clients", { company_name: "Riverbend Athletics", email: "coach@riverbend.example" }, opts);
    expect(client.status).toBe(200);
    const order = await co.post("/orders", { title: "Spring league jerseys", client_id: client.body.client.id }, opts);
    expect(order.status).toBe(200);
    const id = order.body.project.id;

    const tees = await co.post(
      `/orders/${id}/items`,
      { title: "Gildan 5000 tee", description: "2-color front", unit_price: "12.50", sizes: { S: 6, M: 10, L: 6, XL: 2 } },
      opts,
    );
    expect(tees.body.item).toMatchObject({ quantity: "24", amount: "300.00", position: 0 });
    const setup = await co.post(`/orders/${id}/items`, { title: "Screen setup", quantity: 2, unit_price: "25.00" }, opts);
    expect(setup.body.invoice.totals.subtotal).toBe("350.00");

    const art = await co.post(
      `/orders/${id}/artworks`,
      { print_method: "screen_print", placements: ["front"], colors: ["Navy", "White"], preview_url: "https://cdn.example/art/jersey.png" },
      opts,
    );
    const approved = await co.patch(`/orders/${id}/artworks/${art.body.artwork.id}`, { status: "approved" }, opts);
    expect(approved.body.artwork.approved_at).not.toBeNull();

    const deposit = await co.post(`/orders/${id}/payments`, { amount: "175.00", paid_date: "2026-12-01", method: "card" }, opts);
    expect(deposit.body.invoice.totals).toMatchObject({ total: "350.00", amount_paid: "175.00", balance_due: "175.00" });

    const full = await co.get(`/orders/${id}`, opts);
    expect(full.body.invoice.totals).toEqual({
      subtotal: "350.00",
      discount: "0.00",
      tax: "0.00",
      total: "350.00",
      amount_paid: "175.00",
      balance_due: "175.00",
    });
    expect(full.body.invoice_items.map((i: any) => [i.title, i.quantity, i.position])).toEqual([
      ["Gildan 5000 tee", "24", 0],
      ["Screen setup", "2", 1],
    ]);
    // The order view adds each artwork's latest proof approval (none asked here).
    expect(full.body.artworks).toEqual([{ ...approved.body.artwork, approval: null }]);
    expect(full.body.payments).toEqual([deposit.body.payment]);

    // create + two item updates reach the accounting system; artwork and payment queue nothing.
    await outboxDone(id, 3);
    const [invoice] = fake.invoices(creds.realm);
    const sales = (inv: any) =>
      inv.Line.filter((l: any) => l.DetailType === "SalesItemLineDetail").map((l: any) => [
        l.Description,
        l.SalesItemLineDetail.Qty,
        l.SalesItemLineDetail.UnitPrice,
        l.Amount,
      ]);
    expect(sales(invoice)).toEqual([
      ["Gildan 5000 tee — 2-color front — (S×6, M×10, L×6, XL×2)", 24, 12.5, 300],
      ["Screen setup", 2, 25, 50],
    ]);

    // Moving and repricing an item resends the whole line array in a sparse update.
    await co.patch(`/orders/${id}/items/${setup.body.item.id}`, { unit_price: "30.00", position: 0 }, opts);
    await outboxDone(id, 4);
    const update = fake
      .apiRequests(creds.realm)
      .filter((r) => r.entity === "invoice" && r.op === "update")
      .at(-1)!;
    expect(update.body.sparse).toBe(true);
    expect(sales(update.body)).toEqual([
      ["Screen setup", 2, 30, 60],
      ["Gildan 5000 tee — 2-color front — (S×6, M×10, L×6, XL×2)", 24, 12.5, 300],
    ]);
    expect(sales(fake.invoices(creds.realm)[0])).toEqual(sales(update.body));
  });
});

describe("order contents in the OpenAPI document", () => {
  it("documents every operation with its body, path ids, 404 and the field rules", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    for (const [kind, param] of [
      ["items", "item_id"],
      ["payments", "payment_id"],
      ["artworks", "artwork_id"],
    ]) {
      const collection = doc.paths[`/orders/{id}/${kind}`];
      const member = doc.paths[`/orders/{id}/${kind}/{${param}}`];
      expect(Object.keys(collection)).toEqual(["post"]);
      expect(Object.keys(member).sort()).toEqual(["delete", "patch"]);
      for (const op of [collection.post, member.patch, member.delete]) expect(Object.keys(op.responses)).toContain("404");
      expect(member.patch.parameters.map((p: any) => p.name).sort()).toEqual([param, "id"].sort());
      expect(collection.post.requestBody.content["application/json"].schema.$ref).toMatch(/Create$/);
    }
    const schemas = doc.components.schemas;
    expect(schemas.ArtworkCreate.properties.status.enum).toEqual(["draft", "sent", "approved", "rejected"]);
    expect(schemas.Artwork.properties.approved_at).toBeDefined();
    expect(schemas.InvoiceItemCreate.properties.sizes.description).toContain("2XL");
    expect(schemas.InvoiceItemCreate.properties.position.minimum).toBe(0);
    expect(schemas.InvoiceItemChanged.properties.invoice.$ref ?? schemas.InvoiceItemChanged.properties.invoice.allOf).toBeDefined();
  });
});
