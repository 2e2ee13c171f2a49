import { expect } from "vitest";
import { sql, type TestCompany } from "./api";

/** A live client of the company, made through the API. */
export async function newClient(co: TestCompany, fields: Record<string, unknown> = {}): Promise<number> {
  const res = await co.post("/clients", { company_name: `Client ${Math.random().toString(36).slice(2, 8)}`, ...fields });
  expect(res.status).toBe(200);
  return res.body.client.id;
}

/** POST /orders for a fresh client (or the given one); returns the response body ({ project, invoice }). */
export async function newOrder(co: TestCompany, body: Record<string, unknown> = {}) {
  const client_id = (body.client_id as number | undefined) ?? (await newClient(co));
  const res = await co.post("/orders", { title: "Team tees", ...body, client_id });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { project: any; invoice: any };
}

/** Whole database rows of an order, to prove a failed or foreign request changed nothing. */
export async function orderRows(projectId: number) {
  const [project] = await sql("select * from projects where id = $1", [projectId]);
  const invoices = await sql("select * from invoices where project_id = $1 order by id", [projectId]);
  return { project, invoices };
}

export async function outboxRows(projectId: number) {
  return sql<{ id: number; operation: string; payload: any; invoice_id: number; company_id: number; status: string }>(
    "select id::int id, operation, payload, invoice_id, company_id, status from accounting_outbox where project_id = $1 order by id",
    [projectId],
  );
}

export const setCreatedAt = (projectId: number, at: string) => sql("update projects set created_at = $2 where id = $1", [projectId, at]);
