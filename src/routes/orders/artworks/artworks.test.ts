import { describe, expect, it } from "vitest";
import { errorEnvelope, expectError, newCompany, sql } from "../../../../test/support/api";
import { newOrder, outboxRows } from "../../../../test/support/orders";

const artworkRow = async (id: number) =>
  (
    await sql<{ status: string; approved_at: Date | null; deleted_at: Date | null }>(
      "select status, approved_at, deleted_at from artworks where id = $1",
      [id],
    )
  )[0];

describe("POST/PATCH/DELETE /orders/{id}/artworks", () => {
  it("adds a draft artwork, approves it (approved_at set once), un-approves it (cleared)", async () => {
    const co = await newCompany({ accountingSync: true });
    const { project, invoice } = await newOrder(co);
    const res = await co.post(`/orders/${project.id}/artworks`, {
      print_method: "screen_print",
      placements: ["front", "back"],
      colors: ["PMS 186 C", "White"],
      preview_url: "https://cdn.example/art/front.png",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.artwork).toMatchObject({
      print_method: "screen_print",
      placements: ["front", "back"],
      colors: ["PMS 186 C", "White"],
      preview_url: "https://cdn.example/art/front.png",
      status: "draft",
      approved_at: null,
    });
    expect(res.body.invoice.totals.total).toBe("0.00");
    expect(res.body.invoice.updated_at > invoice.updated_at).toBe(true);
    const id = res.body.artwork.id;

    const sent = await co.patch(`/orders/${project.id}/artworks/${id}`, { status: "sent" });
    expect(sent.body.artwork).toMatchObject({ status: "sent", approved_at: null });
    const approved = await co.patch(`/orders/${project.id}/artworks/${id}`, { status: "approved" });
    expect(approved.body.artwork.status).toBe("approved");
    expect(approved.body.artwork.approved_at).toBe(approved.body.artwork.updated_at);
    // Approving again, or changing another field, keeps the approval time.
    const again = await co.patch(`/orders/${project.id}/artworks/${id}`, { status: "approved", colors: ["Black"] });
    expect(again.body.artwork).toMatchObject({ colors: ["Black"], approved_at: approved.body.artwork.approved_at });
    const rejected = await co.patch(`/orders/${project.id}/artworks/${id}`, { status: "rejected" });
    expect(rejected.body.artwork).toMatchObject({ status: "rejected", approved_at: null });
    const order = await co.get(`/orders/${project.id}`);
    // The order shows each artwork with its latest proof approval (none here).
    expect(order.body.artworks).toEqual([{ ...rejected.body.artwork, approval: null }]);
    // Artworks are not accounting data: only the order's create row.
    expect((await outboxRows(project.id)).map((r) => r.operation)).toEqual(["create"]);

    const created = await co.post(`/orders/${project.id}/artworks`, { status: "approved" });
    expect(created.body.artwork.approved_at).toBe(created.body.artwork.created_at);

    const gone = await co.del(`/orders/${project.id}/artworks/${id}`);
    expect(gone.body).toMatchObject({ deleted: true, id });
    expect((await artworkRow(id)).deleted_at).not.toBeNull();
    expect((await co.get(`/orders/${project.id}`)).body.artworks.map((a: any) => a.id)).toEqual([created.body.artwork.id]);
    expectError(await co.patch(`/orders/${project.id}/artworks/${id}`, { status: "draft" }), 404, "not_found");
  });

  it("rejects bad input naming the fields: status outside the set, non-http preview URLs, empty patches", async () => {
    const co = await newCompany();
    const { project } = await newOrder(co);
    const { body } = await co.post(`/orders/${project.id}/artworks`, {});
    expect(body.artwork).toMatchObject({ status: "draft", placements: [], colors: [], print_method: null });
    const cases: [string, unknown, string[]][] = [
      ["post", { status: "pending" }, ["status"]],
      ["post", { status: null }, ["status"]],
      ["post", { preview_url: "javascript:alert(1)" }, ["preview_url"]],
      ["post", { preview_url: "ftp://files.example/a.png" }, ["preview_url"]],
      ["post", { preview_url: "not a url" }, ["preview_url"]],
      ["post", { placements: "front" }, ["placements"]],
      ["post", { colors: [""] }, ["colors.0"]],
      ["post", { project_id: 1 }, ["project_id"]],
      ["patch", {}, ["(body)"]],
      ["patch", { status: "APPROVED" }, ["status"]],
    ];
    for (const [method, payload, fields] of cases) {
      const res =
        method === "post"
          ? await co.post(`/orders/${project.id}/artworks`, payload)
          : await co.patch(`/orders/${project.id}/artworks/${body.artwork.id}`, payload);
      const err = expectError(res, 400, "invalid_request");
      expect(err.details.map((d: any) => d.field).sort(), JSON.stringify(payload)).toEqual(fields.sort());
    }
    const [{ n }] = await sql<{ n: number }>("select count(*)::int n from artworks where project_id = $1", [project.id]);
    expect(n).toBe(1);
    expect((await artworkRow(body.artwork.id)).status).toBe("draft");
  });

  it("another company's order or artwork, and an artwork of another order, are 404 and stay unchanged", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const x = (await newOrder(a)).project.id;
    const y = (await newOrder(a)).project.id;
    const art = (await a.post(`/orders/${x}/artworks`, { status: "sent" })).body.artwork.id;
    const answers = [
      await b.post(`/orders/${x}/artworks`, {}),
      await b.patch(`/orders/${x}/artworks/${art}`, { status: "approved" }),
      await b.del(`/orders/${x}/artworks/${art}`),
    ];
    for (const res of answers)
      expect(res.body).toEqual(errorEnvelope(res, { code: "not_found", message: "Order not found", details: null }));
    const wrongOrder = [await a.patch(`/orders/${y}/artworks/${art}`, { status: "approved" }), await a.del(`/orders/${y}/artworks/${art}`)];
    for (const res of wrongOrder)
      expect(res.body).toEqual(errorEnvelope(res, { code: "not_found", message: "Artwork not found", details: null }));
    expect(await artworkRow(art)).toMatchObject({ status: "sent", approved_at: null, deleted_at: null });
  });
});
