import { describe, expect, it } from "vitest";
import { expectError, newCompany } from "../../../test/support/api";

describe("GET /clients/{id}", () => {
  it("finds by numeric id, by URL-encoded email in the path, and by the email query", async () => {
    const a = await newCompany();
    const ids = await a.load({ clients: [{ ref: "m", company_name: "Northside", email: "Maya.Lopez+orders@Northside.example" }] });
    const byId = await a.get(`/clients/${ids.m}`);
    expect(byId.status).toBe(200);
    expect(byId.body.client.id).toBe(ids.m);
    const byPath = await a.get(`/clients/${encodeURIComponent("maya.lopez+orders@northside.EXAMPLE")}`);
    expect(byPath.body.client.id).toBe(ids.m);
    const byQuery = await a.get(`/clients/_?email=${encodeURIComponent("MAYA.LOPEZ+orders@northside.example")}`);
    expect(byQuery.body.client.id).toBe(ids.m);
  });

  it("email is an exact match, not a substring", async () => {
    const a = await newCompany();
    await a.load({ clients: [{ ref: "m", company_name: "N", email: "maya@northside.example" }] });
    expectError(await a.get(`/clients/_?email=${encodeURIComponent("aya@northside.example")}`), 404, "not_found");
  });

  it("returns the oldest live client when several share an email", async () => {
    const a = await newCompany();
    const ids = await a.load({
      clients: [
        { ref: "first", company_name: "First", email: "dup@example.com" },
        { ref: "second", company_name: "Second", email: "DUP@example.com" },
      ],
    });
    expect((await a.get("/clients/dup@example.com")).body.client.id).toBe(ids.first);
    await a.patch(`/clients/${ids.first}`, { deleted: true });
    expect((await a.get("/clients/dup@example.com")).body.client.id).toBe(ids.second);
  });

  it("answers 404 for deleted and absent clients", async () => {
    const a = await newCompany();
    const ids = await a.load({ clients: [{ ref: "d", company_name: "Deleted", email: "del@example.com" }] });
    await a.patch(`/clients/${ids.d}`, { deleted: true });
    expectError(await a.get(`/clients/${ids.d}`), 404, "not_found");
    expectError(await a.get("/clients/del@example.com"), 404, "not_found");
    expectError(await a.get("/clients/2147483000"), 404, "not_found");
  });

  it("rejects ids that are neither numbers nor emails, and a bad email query", async () => {
    const a = await newCompany();
    expect(expectError(await a.get("/clients/abc"), 400, "invalid_request").details).toEqual([expect.objectContaining({ field: "id" })]);
    expectError(await a.get("/clients/99999999999999"), 400, "invalid_request");
    expect(expectError(await a.get("/clients/_?email=nope"), 400, "invalid_request").details).toEqual([
      expect.objectContaining({ field: "email" }),
    ]);
  });

  it("company B cannot read or find company A's client; the answer equals a missing client's", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const ids = await a.load({ clients: [{ ref: "x", company_name: "A's client", email: "private@a.example" }] });
    const missing = await b.get("/clients/2147483001");
    const foreignById = await b.get(`/clients/${ids.x}`);
    const foreignByEmail = await b.get("/clients/private@a.example");
    const foreignByQuery = await b.get("/clients/_?email=private@a.example");
    for (const res of [foreignById, foreignByEmail, foreignByQuery]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe(missing.body.error.code);
      expect(res.body.error.message).toBe(missing.body.error.message);
    }
  });
});
