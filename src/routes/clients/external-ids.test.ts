import { describe, expect, it } from "vitest";
import { expectError, newCompany, sql } from "../../../test/support/api";

const events = async (companyId: number) =>
  sql<{ type: string; resource_id: string }>("select type, resource_id from webhook_events where company_id = $1 order by id", [companyId]);

describe("clients: external_id and metadata", () => {
  it("POST stores both, every read returns them, and the list filters by external_id", async () => {
    const a = await newCompany();
    const created = await a.post("/clients", {
      company_name: "Northside",
      external_id: "shop-1",
      metadata: { channel: "web", empty: "", gone: null },
    });
    expect(created.status).toBe(200);
    // "" and null are not stored on a create.
    expect(created.body.client).toMatchObject({ external_id: "shop-1", metadata: { channel: "web" } });
    const id = created.body.client.id;
    expect((await a.get(`/clients/${id}`)).body.client).toMatchObject({ external_id: "shop-1", metadata: { channel: "web" } });
    await a.post("/clients", { company_name: "Other" });
    const listed = await a.get("/clients?external_id=shop-1");
    expect(listed.body.data.map((c: any) => c.id)).toEqual([id]);
    expect(listed.body.pagination.total).toBe(1);
    expect((await a.get("/clients")).body.data.find((c: any) => c.company_name === "Other")).toMatchObject({
      external_id: null,
      metadata: {},
    });
    expect((await a.get("/clients?external_id=nope")).body.data).toEqual([]);
  });

  it("a second live client with the same external id is 409 conflict naming it; nothing is written", async () => {
    const a = await newCompany();
    const first = (await a.post("/clients", { company_name: "One", external_id: "dup" })).body.client;
    const err = expectError(await a.post("/clients", { company_name: "Two", external_id: "dup" }), 409, "conflict");
    expect(err.details).toEqual([{ field: "external_id", message: `Already the external id of client ${first.id}` }]);
    const other = (await a.post("/clients", { company_name: "Three" })).body.client;
    expectError(await a.patch(`/clients/${other.id}`, { external_id: "dup" }), 409, "conflict");
    expect((await sql("select count(*)::int n from clients where company_id = $1 and external_id = 'dup'", [a.companyId]))[0].n).toBe(1);
    // A soft-deleted client frees its external id; null clears one.
    expect((await a.patch(`/clients/${first.id}`, { deleted: true })).status).toBe(200);
    expect((await a.patch(`/clients/${other.id}`, { external_id: "dup" })).body.client.external_id).toBe("dup");
    expect((await a.patch(`/clients/${other.id}`, { external_id: null })).body.client.external_id).toBeNull();
  });

  it("the same external id in two companies is two clients; B never finds A's", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const ca = (await a.post("/clients", { company_name: "A's", external_id: "same" })).body.client;
    const cb = (await b.post("/clients", { company_name: "B's", external_id: "same" })).body.client;
    expect(cb.id).not.toBe(ca.id);
    expect((await b.get("/clients?external_id=same")).body.data.map((c: any) => c.id)).toEqual([cb.id]);
    // B's upsert of that external id updates B's client only.
    const put = await b.put("/clients/by-external-id/same", { company_name: "B renamed" });
    expect(put.status).toBe(200);
    expect(put.body.client.id).toBe(cb.id);
    expect((await a.get(`/clients/${ca.id}`)).body.client.company_name).toBe("A's");
  });

  it('PATCH merges metadata: keys sent replace, "" or null removes, metadata: null clears; more than 50 keys is a 400', async () => {
    const a = await newCompany();
    const id = (await a.post("/clients", { company_name: "M", metadata: { a: "1", b: "2", c: "3" } })).body.client.id;
    const merged = await a.patch(`/clients/${id}`, { metadata: { b: "two", c: "", d: "4", a: null } });
    expect(merged.body.client.metadata).toEqual({ b: "two", d: "4" });
    const full = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`k${i}`, "v"]));
    expect((await a.patch(`/clients/${id}`, { metadata: full })).body.client.metadata).toMatchObject({ b: "two", d: "4" });
    const before = await sql("select metadata, updated_at from clients where id = $1", [id]);
    const err = expectError(await a.patch(`/clients/${id}`, { metadata: { one: "more" } }), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "metadata", message: "Metadata would hold 51 keys; at most 50" }]);
    expect(await sql("select metadata, updated_at from clients where id = $1", [id])).toEqual(before);
    expect((await a.patch(`/clients/${id}`, { metadata: null })).body.client.metadata).toEqual({});
  });

  it.each([
    ["an empty external id", { external_id: "" }, "external_id"],
    ["a 256-character external id", { external_id: "x".repeat(256) }, "external_id"],
    ["a control character", { external_id: "a\tb" }, "external_id"],
    ["51 metadata keys", { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) }, "metadata"],
    ["a 41-character key", { metadata: { ["k".repeat(41)]: "v" } }, "metadata.kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"],
    ["a 501-character value", { metadata: { k: "v".repeat(501) } }, "metadata.k"],
    ["a number value", { metadata: { k: 5 } }, "metadata.k"],
  ])("refuses %s with 400 naming the field", async (_label, fields, field) => {
    const a = await newCompany();
    const err = expectError(await a.post("/clients", { company_name: "Bad", ...fields }), 400, "invalid_request");
    expect(err.details).toEqual([expect.objectContaining({ field })]);
    expect(await sql("select 1 from clients where company_id = $1", [a.companyId])).toEqual([]);
  });

  it("accepts 255 characters of any printable script, kept exactly", async () => {
    const a = await newCompany();
    const long = `${"é".repeat(250)}#1 / ?`;
    expect([...long].length).toBe(256);
    expectError(await a.post("/clients", { company_name: "Long", external_id: long }), 400, "invalid_request");
    const ok = `${"é".repeat(249)}#1 / ?`;
    const res = await a.post("/clients", { company_name: "Long", external_id: ok });
    expect(res.body.client.external_id).toBe(ok);
    const put = await a.put(`/clients/by-external-id/${encodeURIComponent(ok)}`, { company_name: "Long renamed" });
    expect([put.status, put.body.client.id]).toEqual([200, res.body.client.id]);
    // Exact: another case is another id.
    expect((await a.put("/clients/by-external-id/ABC", { company_name: "Upper" })).status).toBe(201);
    expect((await a.put("/clients/by-external-id/abc", { company_name: "Lower" })).status).toBe(201);
  });
});

describe("PUT /clients/by-external-id/{external_id}", () => {
  it("creates (201, client.created) then updates only the fields sent (200, client.updated, metadata merged), with ETags", async () => {
    const a = await newCompany();
    const created = await a.put("/clients/by-external-id/crm-7", {
      company_name: "Lakeside",
      email: "a@lake.example",
      metadata: { x: "1" },
    });
    expect(created.status).toBe(201);
    expect(created.body.client).toMatchObject({
      company_name: "Lakeside",
      external_id: "crm-7",
      email: "a@lake.example",
      metadata: { x: "1" },
    });
    const id = created.body.client.id;
    expect(created.headers.get("etag")).toBe((await a.get(`/clients/${id}`)).headers.get("etag"));
    const updated = await a.put("/clients/by-external-id/crm-7", { company_name: "Lakeside Run Club", metadata: { y: "2" } });
    expect(updated.status).toBe(200);
    expect(updated.body.client).toMatchObject({
      id,
      company_name: "Lakeside Run Club",
      email: "a@lake.example",
      metadata: { x: "1", y: "2" },
    });
    expect(updated.headers.get("etag")).toBe((await a.get(`/clients/${id}`)).headers.get("etag"));
    expect(await events(a.companyId)).toEqual([
      { type: "client.created", resource_id: String(id) },
      { type: "client.updated", resource_id: String(id) },
    ]);
    // The body has the create fields: company_name is required; external_id is the path's.
    expectError(await a.put("/clients/by-external-id/crm-8", { email: "b@lake.example" }), 400, "invalid_request");
    const unknown = expectError(
      await a.put("/clients/by-external-id/crm-8", { company_name: "X", external_id: "y" }),
      400,
      "invalid_request",
    );
    expect(unknown.details).toEqual([{ field: "external_id", message: "Unknown field" }]);
  });

  it("20 identical PUTs at once make one client; the others update it", async () => {
    const a = await newCompany();
    const results = await Promise.all(Array.from({ length: 20 }, () => a.put("/clients/by-external-id/race", { company_name: "Race" })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(results.map((r) => r.body.client.id)).size).toBe(1);
    expect((await sql("select count(*)::int n from clients where company_id = $1", [a.companyId]))[0].n).toBe(1);
    const types = (await events(a.companyId)).map((e) => e.type);
    expect(types.filter((t) => t === "client.created")).toHaveLength(1);
    expect(types.filter((t) => t === "client.updated")).toHaveLength(19);
  });

  it("a soft-deleted client's external id is upserted as a new client", async () => {
    const a = await newCompany();
    const first = (await a.put("/clients/by-external-id/gone", { company_name: "Gone" })).body.client;
    await a.patch(`/clients/${first.id}`, { deleted: true });
    const again = await a.put("/clients/by-external-id/gone", { company_name: "Back" });
    expect(again.status).toBe(201);
    expect(again.body.client.id).not.toBe(first.id);
  });
});
