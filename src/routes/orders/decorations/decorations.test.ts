import { describe, expect, it } from "vitest";
import { errorEnvelope, expectError, newCompany, sql, type TestCompany, waitFor, workerLogLines } from "../../../../test/support/api";
import { companyRows } from "../../../../test/support/operations";
import { newOrder } from "../../../../test/support/orders";

const base = (orderId: number, itemId: number) => `/orders/${orderId}/items/${itemId}/decorations`;

/** An order with one item and one artwork. */
async function orderWithItem(co: TestCompany) {
  const { project } = await newOrder(co);
  const item = (await co.post(`/orders/${project.id}/items`, { title: "Gildan 5000", unit_price: "10.00", quantity: 12 })).body.item;
  const artwork = (await co.post(`/orders/${project.id}/artworks`, { print_method: "screen_print" })).body.artwork;
  return { orderId: project.id as number, itemId: item.id as number, artworkId: artwork.id as number };
}

const FRONT = {
  location: "front",
  method: "screen_print",
  colors: [{ name: "Red", code: "PMS 186 C" }, { name: "White" }],
  color_count: 2,
  width: "11.5",
  height: 4,
  unit: "in",
};
const CHEST = { location: "left_chest", method: "embroidery", stitch_count: 8000, colors: [{ name: "Navy", code: "Madeira 1243" }] };

const liveDecorations = (itemId: number) =>
  sql<{ id: number; position: number }>(
    "select id, position from decorations where invoice_item_id = $1 and deleted_at is null order by position",
    [itemId],
  );
/** The order's `order.updated` events' previous_attributes, oldest first. */
const previousAttributes = (companyId: number, orderId: number) =>
  sql<{ previous_attributes: any }>(
    "select previous_attributes from webhook_events where company_id = $1 and resource_id = $2 and type = 'order.updated' order by id",
    [companyId, String(orderId)],
  );

describe("decorations of a line item", () => {
  it("creates, reads (GET /orders/{id} and the item routes), updates, moves, reorders and deletes them; positions stay dense", async () => {
    const co = await newCompany();
    const { orderId, itemId, artworkId } = await orderWithItem(co);
    const before = (await co.get(`/orders/${orderId}`)).body;
    const front = await co.post(base(orderId, itemId), { ...FRONT, artwork_id: artworkId, notes: "Match the logo" });
    expect(front.status, JSON.stringify(front.body)).toBe(200);
    expect(front.body.decoration).toMatchObject({
      item_id: itemId,
      location: "front",
      location_detail: null,
      method: "screen_print",
      colors: [
        { name: "Red", code: "PMS 186 C" },
        { name: "White", code: null },
      ],
      color_count: 2,
      stitch_count: null,
      width: "11.5",
      height: "4",
      unit: "in",
      artwork_id: artworkId,
      notes: "Match the logo",
      position: 0,
    });
    // Totals unchanged; the order moves on.
    expect(front.body.invoice.totals).toEqual(before.invoice.totals);
    expect(front.body.invoice.updated_at > before.invoice.updated_at).toBe(true);
    // Inserted first: the front print moves down.
    const chest = await co.post(base(orderId, itemId), { ...CHEST, position: 0 });
    expect(chest.body.decoration.position).toBe(0);
    const other = await co.post(base(orderId, itemId), { location: "other", location_detail: "Inside the collar", method: "dtf" });
    expect(other.body.decoration.position).toBe(2);
    const ids = [chest.body.decoration.id, front.body.decoration.id, other.body.decoration.id];
    expect((await liveDecorations(itemId)).map((d) => d.id)).toEqual(ids);

    const order = (await co.get(`/orders/${orderId}`)).body;
    expect(order.invoice_items[0].decorations.map((d: any) => d.id)).toEqual(ids);
    expect(order.invoice_items[0].decorations[1]).toEqual({ ...front.body.decoration, position: 1, updated_at: expect.any(String) });

    // The item routes answer the item with its decorations.
    const item = await co.patch(`/orders/${orderId}/items/${itemId}`, { title: "Gildan 5000, black" });
    expect(item.body.item.decorations).toEqual(order.invoice_items[0].decorations);

    // PATCH: the fields sent; position moves it and renumbers the others.
    const moved = await co.patch(`${base(orderId, itemId)}/${other.body.decoration.id}`, { position: 0, notes: "Small" });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.decoration).toMatchObject({ position: 0, notes: "Small", location: "other", location_detail: "Inside the collar" });
    expect((await liveDecorations(itemId)).map((d) => d.id)).toEqual([ids[2], ids[0], ids[1]]);

    // Reorder: every live id once.
    const reordered = await co.post(`${base(orderId, itemId)}/reorder`, { ids: [ids[1], ids[0], ids[2]] });
    expect(reordered.status, JSON.stringify(reordered.body)).toBe(200);
    expect(reordered.body.decorations.map((d: any) => [d.id, d.position])).toEqual([
      [ids[1], 0],
      [ids[0], 1],
      [ids[2], 2],
    ]);
    const afterReorder = (await co.get(`/orders/${orderId}`)).body;
    expect(afterReorder.invoice_items[0].decorations).toEqual(reordered.body.decorations);

    // DELETE closes the gap; a second DELETE is 404.
    const gone = await co.del(`${base(orderId, itemId)}/${ids[1]}`);
    expect(gone.body).toMatchObject({ deleted: true, id: ids[1] });
    expect((await liveDecorations(itemId)).map((d) => [d.id, d.position])).toEqual([
      [ids[0], 0],
      [ids[2], 1],
    ]);
    expect((await co.del(`${base(orderId, itemId)}/${ids[1]}`)).body).toMatchObject({
      error: { code: "not_found", message: "Decoration not found" },
    });

    // A deleted artwork is no decoration's artwork any more.
    await co.del(`/orders/${orderId}/artworks/${artworkId}`);
    const afterArtwork = (await co.get(`/orders/${orderId}`)).body;
    expect(afterArtwork.invoice_items[0].decorations.map((d: any) => d.artwork_id)).toEqual([null, null]);

    // The item's DELETE takes its decorations with it.
    await co.del(`/orders/${orderId}/items/${itemId}`);
    expect(await liveDecorations(itemId)).toEqual([]);
  });

  it("each change is an order.updated event whose previous_attributes are the item's decorations as they were", async () => {
    const co = await newCompany();
    const { orderId, itemId } = await orderWithItem(co);
    const first = (await co.post(base(orderId, itemId), FRONT)).body.decoration;
    const patched = (await co.patch(`${base(orderId, itemId)}/${first.id}`, { color_count: 3 })).body.decoration;
    await co.del(`${base(orderId, itemId)}/${first.id}`);
    const events = await previousAttributes(co.companyId, orderId);
    // The item's POST replaced nothing of the order's own (`{}`); then the three decoration changes.
    expect(events.slice(-3).map((e) => e.previous_attributes)).toEqual([
      { item_id: itemId, decorations: [] },
      { item_id: itemId, decorations: [first] },
      { item_id: itemId, decorations: [patched] },
    ]);
    expect(events.slice(0, -3).map((e) => e.previous_attributes)).toEqual(events.slice(0, -3).map(() => ({})));
    // The payload carries them beside the order, as the events feed and webhooks do.
    const [last] = await waitFor(
      "the last event's payload",
      () =>
        sql<{ payload: any }>(
          "select payload from webhook_events where company_id = $1 and type = 'order.updated' order by id desc limit 1",
          [co.companyId],
        ),
      // The newest event's own payload (filled after the response): an earlier one's may be filled first.
      (rows) => rows[0]?.payload != null,
    );
    expect(last.payload.data.previous_attributes).toEqual({ item_id: itemId, decorations: [patched] });
  });

  it("refuses bad input naming the fields, writing nothing", async () => {
    const co = await newCompany();
    const { orderId, itemId } = await orderWithItem(co);
    const chest = (await co.post(base(orderId, itemId), CHEST)).body.decoration;
    const url = base(orderId, itemId);
    const cases: [string, string, unknown, string[]][] = [
      ["post", url, { method: "dtg" }, ["location"]],
      ["post", url, { location: "front" }, ["method"]],
      ["post", url, { location: "pocket", method: "dtg" }, ["location"]],
      ["post", url, { location: "front", method: "Screen Print" }, ["method"]],
      ["post", url, { location: "other", method: "dtg" }, ["location_detail"]],
      ["post", url, { location: "front", method: "dtg", color_count: 2 }, ["color_count"]],
      ["post", url, { location: "front", method: "screen_print", stitch_count: 100 }, ["stitch_count"]],
      ["post", url, { ...FRONT, color_count: 1 }, ["colors"]],
      ["post", url, { location: "front", method: "dtg", width: 10 }, ["unit"]],
      ["post", url, { location: "front", method: "dtg", unit: "cm" }, ["unit"]],
      ["post", url, { location: "front", method: "dtg", width: 0, unit: "cm" }, ["width"]],
      ["post", url, { location: "front", method: "dtg", height: "1.234", unit: "cm" }, ["height"]],
      ["post", url, { location: "front", method: "dtg", unit: "ft", width: 1 }, ["unit"]],
      ["post", url, { location: "front", method: "dtg", colors: [{ name: "" }] }, ["colors.0.name"]],
      ["post", url, { location: "front", method: "dtg", colors: ["Red"] }, ["colors.0"]],
      ["post", url, { location: "front", method: "dtg", colors: [{ name: "Red", hex: "#f00" }] }, ["colors.0.hex"]],
      ["post", url, { location: "front", method: "dtg", item_id: 1 }, ["item_id"]],
      ["post", url, { location: "front", method: "dtg", position: -1 }, ["position"]],
      ["post", `${url}/reorder`, { ids: [chest.id, chest.id] }, ["ids"]],
      ["post", `${url}/reorder`, { ids: [] }, ["ids"]],
      ["patch", `${url}/${chest.id}`, {}, ["(body)"]],
      // The rules hold for the decoration after the change: a stored stitch count needs embroidery.
      ["patch", `${url}/${chest.id}`, { method: "screen_print" }, ["stitch_count"]],
      ["patch", `${url}/${chest.id}`, { location: "other" }, ["location_detail"]],
      ["patch", `${url}/${chest.id}`, { width: 3 }, ["unit"]],
      ["patch", `${url}/${chest.id}`, { method: null }, ["method"]],
    ];
    const rows = await companyRows(co.companyId);
    for (const [method, path, payload, fields] of cases) {
      const res = method === "post" ? await co.post(path, payload) : await co.patch(path, payload);
      const err = expectError(res, 400, "invalid_request");
      expect(err.details.map((d: any) => d.field).sort(), `${path} ${JSON.stringify(payload)}`).toEqual(fields.sort());
    }
    // Changing both together is fine.
    const ok = await co.patch(`${url}/${chest.id}`, { method: "screen_print", stitch_count: null, color_count: 1 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const now = await companyRows(co.companyId);
    expect({ ...now, decorations: [], webhook_events: [], invoices: [], projects: [] }).toEqual({
      ...rows,
      decorations: [],
      webhook_events: [],
      invoices: [],
      projects: [],
    });
    expect(now.webhook_events.length).toBe(rows.webhook_events.length + 1);
  });

  it("an artwork_id that is not one of this order's live artworks is 422 naming it, the same for another order's, another company's, a deleted or a missing one", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { orderId, itemId } = await orderWithItem(a);
    const otherOrder = await orderWithItem(a);
    const foreign = await orderWithItem(b);
    const deleted = (await a.post(`/orders/${orderId}/artworks`, {})).body.artwork.id;
    await a.del(`/orders/${orderId}/artworks/${deleted}`);
    const dec = (await a.post(base(orderId, itemId), CHEST)).body.decoration;
    const rows = await companyRows(a.companyId);
    for (const artwork_id of [otherOrder.artworkId, foreign.artworkId, deleted, 2147483000]) {
      for (const res of [
        await a.post(base(orderId, itemId), { ...CHEST, artwork_id }, { headers: { "x-request-id": "same" } }),
        await a.patch(`${base(orderId, itemId)}/${dec.id}`, { artwork_id }, { headers: { "x-request-id": "same" } }),
      ]) {
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          error: {
            code: "invalid_request",
            message: "Invalid artwork_id",
            details: [{ field: "artwork_id", message: "Not one of this order's artworks" }],
            request_id: "same",
          },
        });
      }
    }
    expect(await companyRows(a.companyId)).toEqual(rows);
  });

  it("company B never changes, deletes or reorders company A's decorations: the same answer as for rows that do not exist", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { orderId, itemId } = await orderWithItem(a);
    const other = await orderWithItem(a);
    const dec = (await a.post(base(orderId, itemId), FRONT)).body.decoration;
    const rowsA = await companyRows(a.companyId);
    const missing = 2147483000;
    const pairs: [Promise<any>, Promise<any>][] = [
      [b.post(base(orderId, itemId), CHEST), b.post(base(missing, missing), CHEST)],
      [b.patch(`${base(orderId, itemId)}/${dec.id}`, { notes: "x" }), b.patch(`${base(missing, missing)}/${missing}`, { notes: "x" })],
      [b.del(`${base(orderId, itemId)}/${dec.id}`), b.del(`${base(missing, missing)}/${missing}`)],
      [b.post(`${base(orderId, itemId)}/reorder`, { ids: [dec.id] }), b.post(`${base(missing, missing)}/reorder`, { ids: [dec.id] })],
    ];
    for (const [foreign, none] of pairs) {
      const [x, y] = await Promise.all([foreign, none]);
      expect(x.status).toBe(404);
      expect(x.body).toEqual(errorEnvelope(x, { code: "not_found", message: "Order not found", details: null }));
      expect({ ...y.body.error, request_id: "" }).toEqual({ ...x.body.error, request_id: "" });
    }
    // B's order view and lists show nothing of A's; A's rows are unchanged.
    expectError(await b.get(`/orders/${orderId}`), 404, "not_found");
    expect(await companyRows(a.companyId)).toEqual(rowsA);
    // Within A: an item of another order is "Item not found", a decoration of another item "Decoration not found".
    expect((await a.post(base(other.orderId, itemId), CHEST)).body.error.message).toBe("Item not found");
    expect((await a.patch(`${base(other.orderId, other.itemId)}/${dec.id}`, { notes: "x" })).body.error.message).toBe(
      "Decoration not found",
    );
    expect((await a.del(`${base(other.orderId, other.itemId)}/${dec.id}`)).body.error.message).toBe("Decoration not found");
    expect(await companyRows(a.companyId)).toEqual(rowsA);
  });

  it("takes Idempotency-Key on its POSTs, and bounds an item's decorations", async () => {
    const co = await newCompany();
    const { orderId, itemId } = await orderWithItem(co);
    const key = { headers: { "idempotency-key": `dec-${orderId}` } };
    const first = await co.post(base(orderId, itemId), CHEST, key);
    const again = await co.post(base(orderId, itemId), CHEST, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await liveDecorations(itemId)).toHaveLength(1);
    await sql(
      `insert into decorations (company_id, project_id, invoice_item_id, location, method, position)
       select $1, $2, $3, 'back', 'dtg', g from generate_series(1, 49) g`,
      [co.companyId, orderId, itemId],
    );
    const err = expectError(await co.post(base(orderId, itemId), CHEST), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "(item)", message: "A line item holds at most 50 live decorations" }]);
  });

  it("sequential decoration writes take the optimistic two-statement path (no locked fallback)", async () => {
    const co = await newCompany();
    const { orderId, itemId } = await orderWithItem(co);
    for (let i = 0; i < 3; i++) {
      const d = (await co.post(base(orderId, itemId), { ...CHEST, position: 0 })).body.decoration;
      expect((await co.patch(`${base(orderId, itemId)}/${d.id}`, { position: 5, notes: `n${i}` })).status).toBe(200);
    }
    const ids = (await liveDecorations(itemId)).map((d) => d.id);
    expect((await co.post(`${base(orderId, itemId)}/reorder`, { ids: ids.reverse() })).status).toBe(200);
    const fallbacks = workerLogLines().filter((l) => l.includes("under its invoice's row lock") && l.includes(`"order_id":${orderId}`));
    expect(fallbacks).toEqual([]);
  });
});

describe("GET /orders?decoration_method=…&decoration_location=…", () => {
  it("finds orders by their live decorations' method and location (one decoration matching both), for the token's company only", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const print = await orderWithItem(a);
    const stitch = await orderWithItem(a);
    await orderWithItem(a); // undecorated
    const removed = await orderWithItem(a);
    const itemGone = await orderWithItem(a);
    await a.post(base(print.orderId, print.itemId), FRONT);
    await a.post(base(print.orderId, print.itemId), { location: "back", method: "dtg" });
    await a.post(base(stitch.orderId, stitch.itemId), CHEST);
    const d = (await a.post(base(removed.orderId, removed.itemId), FRONT)).body.decoration;
    await a.del(`${base(removed.orderId, removed.itemId)}/${d.id}`);
    await a.post(base(itemGone.orderId, itemGone.itemId), CHEST);
    await a.del(`/orders/${itemGone.orderId}/items/${itemGone.itemId}`);
    const ids = async (co: TestCompany, query: string) => {
      const res = await co.get(`/orders?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.pagination.total).toBe(res.body.data.length);
      return res.body.data.map((o: any) => o.id).sort();
    };
    expect(await ids(a, "decoration_method=screen_print")).toEqual([print.orderId]);
    expect(await ids(a, "decoration_method=embroidery,screen_print")).toEqual([print.orderId, stitch.orderId].sort());
    expect(await ids(a, "decoration_location=left_chest")).toEqual([stitch.orderId]);
    expect(await ids(a, "decoration_location=back&decoration_method=dtg")).toEqual([print.orderId]);
    // Both on one decoration: the print order's front is screen printed, its back is DTG.
    expect(await ids(a, "decoration_location=front&decoration_method=dtg")).toEqual([]);
    expect(await ids(a, "decoration_method=vinyl")).toEqual([]);
    // Company B finds none of A's orders by them.
    expect(await ids(b, "decoration_method=screen_print,embroidery,dtg")).toEqual([]);
    expect(await ids(b, "decoration_location=front,back,left_chest")).toEqual([]);
    for (const query of ["decoration_method=Screen_Print", "decoration_method=screen_print,", "decoration_location=pocket"]) {
      const err = expectError(await a.get(`/orders?${query}`), 400, "invalid_request");
      expect(err.details.map((x: any) => x.field)).toEqual([query.split("=")[0]]);
    }
  });
});
