import { describe, expect, it } from "vitest";
import { asRequest, expectError, newCompany, sql } from "../../../test/support/api";
import { newClient, newOrder } from "../../../test/support/orders";

describe("POST /orders", () => {
  it("creates the project and its default invoice, with zero totals and money as decimal strings", async () => {
    const co = await newCompany();
    const clientId = await newClient(co, { tax_exempt: true, tax_exempt_reason: "Non-profit" });
    const res = await co.post("/orders", { title: "  Spring league jerseys ", client_id: clientId, description: "Two-color front" });
    expect(res.status).toBe(200);
    const { project, invoice } = res.body;
    expect(project).toMatchObject({
      title: "Spring league jerseys",
      description: "Two-color front",
      client_id: clientId,
      status_id: null,
      deadline: null,
      start_date: null,
    });
    expect(invoice).toMatchObject({
      project_id: project.id,
      client_id: clientId,
      tax_id: null,
      tax_exempt: true,
      tax_exempt_reason: "Non-profit",
      discount_amount: "0.00",
      discount_amount_type: "percentage",
      discount_type: "before_tax",
      totals: { subtotal: "0.00", discount: "0.00", tax: "0.00", total: "0.00", amount_paid: "0.00", balance_due: "0.00" },
    });
    const rows = await sql("select company_id, is_default, deleted_at from invoices where project_id = $1", [project.id]);
    expect(rows).toEqual([{ company_id: co.companyId, is_default: true, deleted_at: null }]);
  });

  it("requires title and client_id, rejects unknown fields and a company id, each named", async () => {
    const co = await newCompany();
    const missing = expectError(await co.post("/orders", {}), 400, "invalid_request");
    expect(missing.details.map((d: any) => d.field).sort()).toEqual(["client_id", "title"]);
    const blank = expectError(await co.post("/orders", { title: "   ", client_id: 1 }), 400, "invalid_request");
    expect(blank.details).toEqual([expect.objectContaining({ field: "title" })]);
    const unknown = expectError(await co.post("/orders", { title: "x", client_id: 1, total: 5, status_id: 2 }), 400, "invalid_request");
    expect(unknown.details.map((d: any) => d.field).sort()).toEqual(["status_id", "total"]);
    const company = expectError(await co.post("/orders", { title: "x", client_id: 1, company_id: 9 }), 400, "invalid_request");
    expect(company.details).toEqual([expect.objectContaining({ field: "company_id" })]);
    for (const client_id of ["7", 1.5, 0, -3, null]) {
      expectError(await co.post("/orders", { title: "x", client_id }), 400, "invalid_request");
    }
  });

  it("answers another company's client exactly like a missing or soft-deleted one, and writes nothing", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const foreign = await newClient(a);
    const deleted = await newClient(b);
    await b.patch(`/clients/${deleted}`, { deleted: true });
    const answers = [];
    for (const client_id of [foreign, deleted, 2_000_000_000]) {
      const res = await b.post("/orders", { title: "Hoodies", client_id }, asRequest("foreign-deleted-or-missing"));
      expectError(res, 400, "invalid_request");
      answers.push(res.body);
    }
    expect(answers[0]).toEqual(answers[2]);
    expect(answers[1]).toEqual(answers[2]);
    expect(answers[0].error.details).toEqual([{ field: "client_id", message: "No such client in your company" }]);
    const [{ n }] = await sql<{ n: string }>("select count(*) n from projects where company_id = $1", [b.companyId]);
    expect(n).toBe("0");
  });

  it("concurrent creates leave every project with exactly one invoice", async () => {
    const co = await newCompany();
    const clientId = await newClient(co);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => co.post("/orders", { title: `Order ${i}`, client_id: clientId })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const rows = await sql<{ project_id: number; n: string }>(
      "select p.id project_id, count(i.id) n from projects p left join invoices i on i.project_id = p.id where p.company_id = $1 group by p.id",
      [co.companyId],
    );
    expect(rows).toHaveLength(20);
    expect(rows.every((r) => r.n === "1")).toBe(true);
    expect(new Set(results.map((r) => r.body.invoice.id)).size).toBe(20);
  });

  it("the client's tax exemption is copied at creation, not linked", async () => {
    const co = await newCompany();
    const { project, invoice } = await newOrder(co);
    expect(invoice.tax_exempt).toBe(false);
    await co.patch(`/clients/${project.client_id}`, { tax_exempt: true });
    expect((await co.get(`/orders/${project.id}`)).body.invoice.tax_exempt).toBe(false);
  });
});
