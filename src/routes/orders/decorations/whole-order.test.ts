import { describe, expect, it } from "vitest";
import { expectError, newCompany, sql } from "../../../../test/support/api";
import { newClient } from "../../../../test/support/orders";

const FRONT = { location: "front", method: "screen_print", colors: [{ name: "Red", code: "PMS 186 C" }], color_count: 1, artwork_index: 1 };
const SLEEVE = { location: "left_sleeve", method: "vinyl", notes: "Player name" };
const CHEST = { location: "left_chest", method: "embroidery", stitch_count: 6500, artwork_index: 0, width: 3.5, height: 3.5, unit: "in" };

const lines = () => [
  { title: "Tee", unit_price: "10.00", quantity: 24, decorations: [FRONT, SLEEVE] },
  { title: "Polo", unit_price: "20.00", quantity: 6, decorations: [CHEST] },
  { title: "Setup", unit_price: "25.00" },
];
const artworks = () => [{ print_method: "embroidery" }, { print_method: "screen_print" }];

const decorationCount = (companyId: number) =>
  sql<{ live: number; all: number }>(
    "select count(*) filter (where deleted_at is null)::int live, count(*)::int all from decorations where company_id = $1",
    [companyId],
  ).then((r) => r[0]);

/** Each item's decorations as [location, method, artwork index among the order's artworks or null, position]. */
function shape(order: any) {
  const artworkIndex = new Map(order.artworks.map((a: any, i: number) => [a.id, i]));
  return order.invoice_items.map((i: any) =>
    i.decorations.map((d: any) => [d.location, d.method, d.artwork_id === null ? null : artworkIndex.get(d.artwork_id), d.position]),
  );
}

describe("decorations in whole-order writes", () => {
  it("POST /orders writes items with their decorations in one request, artworks named by their index in the body", async () => {
    const co = await newCompany();
    const client_id = await newClient(co);
    const res = await co.post("/orders", { title: "Team kit", client_id, items: lines(), artworks: artworks() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const order = (await co.get(`/orders/${res.body.project.id}`)).body;
    expect(shape(order)).toEqual([
      [
        ["front", "screen_print", 1, 0],
        ["left_sleeve", "vinyl", null, 1],
      ],
      [["left_chest", "embroidery", 0, 0]],
      [],
    ]);
    expect(order.invoice_items[0].decorations[0]).toMatchObject({ colors: [{ name: "Red", code: "PMS 186 C" }], color_count: 1 });
    expect(order.invoice_items[1].decorations[0]).toMatchObject({ stitch_count: 6500, width: "3.5", height: "3.5", unit: "in" });
    expect(order.invoice_items[0].decorations[1]).toMatchObject({ notes: "Player name", colors: [], item_id: order.invoice_items[0].id });
  });

  it("refuses a whole order with a bad decoration naming it, writing nothing", async () => {
    const co = await newCompany();
    const client_id = await newClient(co);
    const cases: [unknown, string[]][] = [
      [{ items: lines() }, ["items.0.decorations.0.artwork_index", "items.1.decorations.0.artwork_index"]],
      [{ items: lines(), artworks: [{}] }, ["items.0.decorations.0.artwork_index"]],
      [{ items: [{ title: "Tee", unit_price: "1", decorations: [{ ...SLEEVE, color_count: 2 }] }] }, ["items.0.decorations.0.color_count"]],
      [{ items: [{ title: "Tee", unit_price: "1", decorations: [{ ...SLEEVE, artwork_id: 1 }] }] }, ["items.0.decorations.0.artwork_id"]],
      [{ items: [{ title: "Tee", unit_price: "1", decorations: Array(51).fill(SLEEVE) }] }, ["items.0.decorations"]],
    ];
    for (const [contents, fields] of cases) {
      for (const res of [
        await co.post("/orders", { title: "Kit", client_id, ...(contents as object) }),
        await co.put("/orders/by-external-id/kit-1", { title: "Kit", client_id, ...(contents as object) }),
      ]) {
        const err = expectError(res, 400, "invalid_request");
        expect(err.details.map((d: any) => d.field).sort(), JSON.stringify(contents)).toEqual(fields.sort());
      }
    }
    expect(await decorationCount(co.companyId)).toEqual({ live: 0, all: 0 });
    expect((await sql("select id from projects where company_id = $1", [co.companyId])).length).toBe(0);
  });

  it("PUT /orders/by-external-id creates them, replaces them with the items, and keeps them when items are not sent", async () => {
    const co = await newCompany();
    const client_id = await newClient(co);
    const created = await co.put("/orders/by-external-id/kit-7", { title: "Kit", client_id, items: lines(), artworks: artworks() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.project.id;
    expect(await decorationCount(co.companyId)).toEqual({ live: 3, all: 3 });
    // Items replaced: the old items' decorations leave with them, the new ones arrive.
    const replaced = await co.put("/orders/by-external-id/kit-7", {
      title: "Kit",
      client_id,
      items: [{ title: "Hoodie", unit_price: "30.00", decorations: [{ location: "hood", method: "dtf", artwork_index: 0 }] }],
      artworks: [{ print_method: "dtf" }],
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    let order = (await co.get(`/orders/${id}`)).body;
    expect(shape(order)).toEqual([[["hood", "dtf", 0, 0]]]);
    expect(await decorationCount(co.companyId)).toEqual({ live: 1, all: 4 });
    // Only the title: items and their decorations stay.
    await co.put("/orders/by-external-id/kit-7", { title: "Kit 2", client_id });
    order = (await co.get(`/orders/${id}`)).body;
    expect(shape(order)).toEqual([[["hood", "dtf", 0, 0]]]);
    // Artworks replaced without the items: the decoration's artwork is gone.
    await co.put("/orders/by-external-id/kit-7", { title: "Kit 2", client_id, artworks: [] });
    order = (await co.get(`/orders/${id}`)).body;
    expect(shape(order)).toEqual([[["hood", "dtf", null, 0]]]);
  });

  it("the order batch writes decorations as its single requests do, and an atomic batch with a bad one writes none", async () => {
    const co = await newCompany();
    const client_id = await newClient(co);
    const res = await co.post("/orders/batch", {
      items: [
        { method: "create", data: { title: "A", client_id, items: lines(), artworks: artworks() } },
        {
          method: "upsert",
          external_id: "kit-b",
          data: { title: "B", client_id, items: [{ title: "Cap", unit_price: "8", decorations: [SLEEVE] }] },
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: any) => r.status)).toEqual([200, 201]);
    const a = (await co.get(`/orders/${res.body.data[0].body.project.id}`)).body;
    const b = (await co.get(`/orders/${res.body.data[1].body.project.id}`)).body;
    expect(shape(a)).toEqual([
      [
        ["front", "screen_print", 1, 0],
        ["left_sleeve", "vinyl", null, 1],
      ],
      [["left_chest", "embroidery", 0, 0]],
      [],
    ]);
    expect(shape(b)).toEqual([[["left_sleeve", "vinyl", null, 0]]]);
    const before = await decorationCount(co.companyId);
    const atomic = await co.post("/orders/batch", {
      atomic: true,
      items: [
        { method: "create", data: { title: "C", client_id, items: lines(), artworks: artworks() } },
        {
          method: "create",
          data: { title: "D", client_id, items: [{ title: "Cap", unit_price: "8", decorations: [{ location: "nose", method: "dtg" }] }] },
        },
      ],
    });
    expect(atomic.body.data.map((r: any) => r.status)).toEqual([424, 400]);
    expect(atomic.body.data[1].body.error.details.map((d: any) => d.field)).toEqual(["items.0.decorations.0.location"]);
    expect(await decorationCount(co.companyId)).toEqual(before);
  });
});
