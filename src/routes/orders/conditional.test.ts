import { describe, expect, it } from "vitest";
import { expectError, newCompany, sql, type TestCompany } from "../../../test/support/api";

async function newOrder(co: TestCompany) {
  const client = (await co.post("/clients", { company_name: "Orders Co" })).body.client;
  const { project } = (await co.post("/orders", { title: "Jerseys", client_id: client.id })).body;
  const etag = (await co.get(`/orders/${project.id}`)).headers.get("etag")!;
  return { id: project.id as number, clientId: client.id as number, etag };
}
const etagOf = async (co: TestCompany, id: number) => (await co.get(`/orders/${id}`)).headers.get("etag")!;

describe("conditional requests on /orders/{id}", () => {
  it("GET answers a strong ETag and 304 for a matching If-None-Match", async () => {
    const a = await newCompany();
    const { id, etag } = await newOrder(a);
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const res = await a.get(`/orders/${id}`, { headers: { "if-none-match": `W/"nope", ${etag}` } });
    expect(res.status).toBe(304);
    expect(res.body).toBe("");
    expect(res.headers.get("etag")).toBe(etag);
  });

  it("every change changes the ETag: PATCH (project or invoice field), contents writes, the client's update", async () => {
    const a = await newCompany();
    const { id, clientId, etag } = await newOrder(a);
    const seen = new Set([etag]);
    const expectNew = async (what: string) => {
      const now = await etagOf(a, id);
      expect(seen.has(now), what).toBe(false);
      seen.add(now);
      return now;
    };
    const patched = await a.patch(`/orders/${id}`, { title: "Renamed" });
    expect(patched.headers.get("etag")).toBe(await expectNew("project field"));
    const invoiceOnly = await a.patch(`/orders/${id}`, { client_notes: "Thanks" });
    expect(invoiceOnly.headers.get("etag")).toBe(await expectNew("invoice field"));
    const item = (await a.post(`/orders/${id}/items`, { title: "Setup", unit_price: "25.00" })).body;
    expect(item).toBeTruthy();
    await expectNew("item added");
    expect((await a.post(`/orders/${id}/payments`, { amount: "5.00" })).status).toBe(200);
    await expectNew("payment added");
    expect((await a.patch(`/clients/${clientId}`, { company_name: "Renamed Co" })).status).toBe(200);
    await expectNew("client renamed");
  });

  it("a stale If-Match on PATCH and DELETE is 412 with the current ETag and writes nothing", async () => {
    const a = await newCompany();
    const { id, etag } = await newOrder(a);
    expect((await a.post(`/orders/${id}/items`, { title: "Setup", unit_price: "25.00" })).status).toBe(200);
    const current = await etagOf(a, id);

    const err = expectError(await a.patch(`/orders/${id}`, { title: "Lost" }, { headers: { "if-match": etag } }), 412, "invalid_request");
    expect(err.details).toEqual({ etag: current });
    const del = expectError(await a.del(`/orders/${id}`, { headers: { "if-match": etag } }), 412, "invalid_request");
    expect(del.details).toEqual({ etag: current });
    const [row] = await sql("select title, deleted_at from projects where id = $1", [id]);
    expect(row).toEqual({ title: "Jerseys", deleted_at: null });

    const ok = await a.patch(`/orders/${id}`, { title: "Kept" }, { headers: { "if-match": current } });
    expect(ok.status).toBe(200);
    expectError(await a.del(`/orders/${id}`, { headers: { "if-match": current } }), 412, "invalid_request");
    expect((await a.del(`/orders/${id}`, { headers: { "if-match": ok.headers.get("etag")! } })).status).toBe(200);
    expectError(await a.del(`/orders/${id}`, { headers: { "if-match": "*" } }), 404, "not_found");
  });

  it("two PATCHes (or a PATCH and a DELETE) with the same If-Match: exactly one wins", async () => {
    const a = await newCompany();
    const { id, etag } = await newOrder(a);
    const results = await Promise.all(
      ["One", "Two", "Three"].map((title) => a.patch(`/orders/${id}`, { title }, { headers: { "if-match": etag } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412]);
    const winner = results.find((r) => r.status === 200)!;
    const [row] = await sql("select title from projects where id = $1", [id]);
    expect(row!.title).toBe(winner.body.project.title);

    const next = winner.headers.get("etag")!;
    const [patch, del] = await Promise.all([
      a.patch(`/orders/${id}`, { client_notes: "Race" }, { headers: { "if-match": next } }),
      a.del(`/orders/${id}`, { headers: { "if-match": next } }),
    ]);
    // One wins; the loser writes nothing: a PATCH after the DELETE finds no order (404), a DELETE after the PATCH a new ETag (412).
    expect([patch.status, del.status].filter((s) => s === 200)).toHaveLength(1);
    if (del.status === 200) expect(patch.status).toBe(404);
    else expectError(del, 412, "invalid_request");
    const [state] = await sql(
      "select p.deleted_at is not null as deleted, i.client_notes from projects p join invoices i on i.project_id = p.id and i.is_default where p.id = $1",
      [id],
    );
    expect(state).toEqual(del.status === 200 ? { deleted: true, client_notes: null } : { deleted: false, client_notes: "Race" });
  });

  it("another company's requests with A's ETag are 404, as for a missing order", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { id, etag } = await newOrder(a);
    expectError(await b.get(`/orders/${id}`, { headers: { "if-none-match": etag } }), 404, "not_found");
    expectError(await b.patch(`/orders/${id}`, { title: "Theirs" }, { headers: { "if-match": etag } }), 404, "not_found");
    expectError(await b.del(`/orders/${id}`, { headers: { "if-match": etag } }), 404, "not_found");
    expectError(await b.del(`/orders/${id}`, { headers: { "if-match": "*" } }), 404, "not_found");
    expect(await etagOf(a, id)).toBe(etag);
  });
});
