import { describe, expect, it } from "vitest";
import { asRequest, expectError, newCompany, sql } from "../../../test/support/api";

describe("PATCH /clients/{id}", () => {
  it("changes only the fields sent and bumps updated_at", async () => {
    const a = await newCompany();
    const created = (await a.post("/clients", { company_name: "Old", first_name: "Ann", phone: "555" })).body.client;
    const res = await a.patch(`/clients/${created.id}`, { company_name: "New Name", phone: null, tax_exempt: true });
    expect(res.status).toBe(200);
    expect(res.body.client).toMatchObject({ id: created.id, company_name: "New Name", first_name: "Ann", phone: null, tax_exempt: true });
    expect(new Date(res.body.client.updated_at).getTime()).toBeGreaterThan(new Date(created.updated_at).getTime());
    expect((await a.get(`/clients/${created.id}`)).body.client).toEqual(res.body.client);
  });

  it("soft-deletes with { deleted: true }, after which the client answers 404 everywhere", async () => {
    const a = await newCompany();
    const { id } = (await a.post("/clients", { company_name: "Doomed" })).body.client;
    const res = await a.patch(`/clients/${id}`, { deleted: true });
    expect(res.status).toBe(200);
    expect(res.body.client.deleted_at).toEqual(expect.any(String));
    expectError(await a.get(`/clients/${id}`), 404, "not_found");
    expectError(await a.patch(`/clients/${id}`, { company_name: "Back?" }), 404, "not_found");
    expectError(await a.patch(`/clients/${id}`, { deleted: true }), 404, "not_found");
    const [row] = await sql("select company_name, deleted_at is not null as deleted from clients where id = $1", [id]);
    expect(row).toEqual({ company_name: "Doomed", deleted: true });
  });

  it.each([
    [{}, "(body)"],
    [{ deleted: false }, "deleted"],
    [{ deleted: true, company_name: "x" }, "deleted"],
    [{ company_name: "" }, "company_name"],
    [{ company_name: null }, "company_name"],
    [{ email: "nope" }, "email"],
    [{ nickname: "x" }, "nickname"],
  ])("rejects %j with 400 naming %s, changing nothing", async (body, field) => {
    const a = await newCompany();
    const { id } = (await a.post("/clients", { company_name: "Stable", email: "s@example.com" })).body.client;
    const err = expectError(await a.patch(`/clients/${id}`, body), 400, "invalid_request");
    expect(err.details.map((d: any) => d.field)).toContain(field);
    const [row] = await sql("select company_name, email, deleted_at from clients where id = $1", [id]);
    expect(row).toEqual({ company_name: "Stable", email: "s@example.com", deleted_at: null });
  });

  it("rejects a non-numeric id", async () => {
    const a = await newCompany();
    expectError(await a.patch("/clients/abc", { company_name: "x" }), 400, "invalid_request");
  });

  it("company B can neither change nor delete company A's client, and gets the missing-client answer", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { id } = (await a.post("/clients", { company_name: "A only" })).body.client;
    const missing = await b.patch("/clients/2147483002", { company_name: "Hacked" }, asRequest("foreign-or-missing"));
    const change = await b.patch(`/clients/${id}`, { company_name: "Hacked" }, asRequest("foreign-or-missing"));
    const del = await b.patch(`/clients/${id}`, { deleted: true }, asRequest("foreign-or-missing"));
    for (const res of [change, del]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(missing.body);
    }
    const [row] = await sql("select company_name, deleted_at from clients where id = $1", [id]);
    expect(row).toEqual({ company_name: "A only", deleted_at: null });
  });
});
