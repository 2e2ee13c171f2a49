import { describe, expect, it } from "vitest";
import { call, expectError, newCompany, sql } from "../../../test/support/api";

describe("POST /clients", () => {
  it("creates a client with every §2.1 field and returns it", async () => {
    const a = await newCompany();
    const body = {
      company_name: "Copper Kettle Brewhouse",
      first_name: "Priya",
      last_name: "Nair",
      email: "priya@copperkettle.example",
      website: "https://copperkettle.example",
      phone: "(555) 010-8812",
      quickbooks_enabled: true,
      tax_exempt: true,
      tax_exempt_reason: "Resale certificate",
    };
    const res = await a.post("/clients", body);
    expect(res.status).toBe(200);
    expect(res.body.client).toMatchObject({ ...body, deleted_at: null });
    expect(res.body.client.id).toEqual(expect.any(Number));
    expect(new Date(res.body.client.created_at).toISOString()).toBe(res.body.client.created_at);
    const [row] = await sql("select company_id, company_name from clients where id = $1", [res.body.client.id]);
    expect(row).toEqual({ company_id: a.companyId, company_name: "Copper Kettle Brewhouse" });
    expect((await a.get(`/clients/${res.body.client.id}`)).body.client).toEqual(res.body.client);
  });

  it("each company's create lands in its own company, with its own event, though the isolate builds the statement once", async () => {
    const [a, b] = [await newCompany(), await newCompany()];
    // Alternating in one isolate: the statement built for A's first create serves B's and A's next.
    const created: { company: typeof a; id: number }[] = [];
    for (const company of [a, b, a, b]) {
      const res = await company.post("/clients", { company_name: `Alternating ${company.companyId}` });
      expect(res.status).toBe(200);
      created.push({ company, id: res.body.client.id });
    }
    for (const { company, id } of created) {
      const [row] = await sql("select company_id from clients where id = $1", [id]);
      expect(row.company_id).toBe(company.companyId);
      const other = company === a ? b : a;
      expect((await other.get(`/clients/${id}`)).status).toBe(404);
      const events = await sql("select company_id from webhook_events where type = 'client.created' and resource_id = $1", [String(id)]);
      expect(events).toEqual([{ company_id: company.companyId }]);
    }
  });

  it("defaults optional fields", async () => {
    const a = await newCompany();
    const res = await a.post("/clients", { company_name: "Minimal" });
    expect(res.body.client).toMatchObject({
      first_name: null,
      last_name: null,
      email: null,
      website: null,
      phone: null,
      quickbooks_enabled: false,
      tax_exempt: false,
      tax_exempt_reason: null,
    });
  });

  it.each([
    [{}, ["company_name"]],
    [{ company_name: "   " }, ["company_name"]],
    [{ company_name: 12 }, ["company_name"]],
    [{ company_name: "X", email: "not-an-email" }, ["email"]],
    [{ company_name: "X", tax_exempt: "yes" }, ["tax_exempt"]],
    [{ company_name: "X", role: "admin", id: 5 }, ["role", "id"]],
  ])("rejects %j naming the fields, writing nothing", async (body, fields) => {
    const a = await newCompany();
    const err = expectError(await a.post("/clients", body), 400, "invalid_request");
    expect(err.details.map((d: any) => d.field).sort()).toEqual([...fields].sort());
    expect(await sql("select id from clients where company_id = $1", [a.companyId])).toEqual([]);
  });

  it.each(["company_id", "companyId"])("rejects a body carrying %s", async (key) => {
    const a = await newCompany();
    const b = await newCompany();
    const err = expectError(await a.post("/clients", { company_name: "Sneaky", [key]: b.companyId }), 400, "invalid_request");
    expect(err.details).toEqual([expect.objectContaining({ field: key })]);
    expect(await sql("select id from clients where company_id in ($1, $2)", [a.companyId, b.companyId])).toEqual([]);
  });

  it("rejects a JSON array or scalar body", async () => {
    const a = await newCompany();
    expectError(await call("POST", "/clients", { token: a.token, body: [{ company_name: "x" }] }), 400, "invalid_request");
    expectError(await call("POST", "/clients", { token: a.token, body: "x" }), 400, "invalid_request");
  });
});
