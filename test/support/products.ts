import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { setIntegration } from "../../src/suppliers/admin";
import { startFakeSupplierA, type FakeSupplierA, type SanMarCredentials } from "../fakes/supplier-a";
import { startFakeSupplierB, type FakeSupplierB, type SsCredentials } from "../fakes/supplier-b";
import { db, sql } from "./api";

/** Both fake suppliers for the test file (started before its tests, closed after). */
export function useFakeSuppliers() {
  const fakes = {} as { a: FakeSupplierA; b: FakeSupplierB };
  beforeAll(async () => {
    [fakes.a, fakes.b] = await Promise.all([startFakeSupplierA(), startFakeSupplierB()]);
  });
  afterAll(async () => {
    await Promise.all([fakes.a?.close(), fakes.b?.close()]);
  });
  return fakes;
}

/** Unique per call, so a test can look for exactly these strings in responses and logs. */
export const sanMarCredentials = (): SanMarCredentials => ({
  customer_number: `cust-${randomUUID()}`,
  username: `user-${randomUUID()}`,
  password: `pw-${randomUUID()}`,
});
export const ssCredentials = (): SsCredentials => ({ account_number: `acct-${randomUUID()}`, api_key: `key-${randomUUID()}` });

/** Sets up the company's supplier_a integration (through the admin CLI's function) against a fake scenario. */
export async function connectSupplierA(companyId: number, fake: FakeSupplierA, scenario = "ok", opts: { enabled?: boolean; valid?: boolean } = {}) {
  const credentials = sanMarCredentials();
  if (opts.valid !== false) fake.allow(credentials);
  await setIntegration(db(), { companyId, provider: "supplier_a", enabled: opts.enabled ?? true, baseUrl: fake.url(scenario), credentials });
  return credentials;
}

export async function connectSupplierB(companyId: number, fake: FakeSupplierB, scenario = "ok", opts: { enabled?: boolean; valid?: boolean } = {}) {
  const credentials = ssCredentials();
  if (opts.valid !== false) fake.allow(credentials);
  await setIntegration(db(), { companyId, provider: "supplier_b", enabled: opts.enabled ?? true, baseUrl: fake.url(scenario), credentials });
  return credentials;
}

export interface LineInput {
  title: string;
  description?: string | null;
  quantity?: string;
  unit_price?: string;
  deleted?: boolean;
}

/**
 * One order (client → project → default invoice) with the given invoice lines, inserted directly:
 * the orders API is built elsewhere. Returns the ids.
 */
export async function addOrder(companyId: number, lines: LineInput[], opts: { projectDeleted?: boolean; invoiceDeleted?: boolean } = {}) {
  const [client] = await sql<{ id: number }>("insert into clients (company_id, company_name) values ($1, 'Order client') returning id", [companyId]);
  const [project] = await sql<{ id: number }>(
    "insert into projects (company_id, client_id, title, deleted_at) values ($1, $2, 'Order', $3) returning id",
    [companyId, client.id, opts.projectDeleted ? new Date() : null],
  );
  const [invoice] = await sql<{ id: number }>(
    "insert into invoices (company_id, project_id, client_id, deleted_at) values ($1, $2, $3, $4) returning id",
    [companyId, project.id, client.id, opts.invoiceDeleted ? new Date() : null],
  );
  const items: number[] = [];
  for (const [i, line] of lines.entries()) {
    const [item] = await sql<{ id: number }>(
      `insert into invoice_items (company_id, invoice_id, title, description, quantity, unit_price, sizes, position, deleted_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id`,
      [companyId, invoice.id, line.title, line.description ?? null, line.quantity ?? "1", line.unit_price ?? "0", JSON.stringify({ M: 2 }), i, line.deleted ? new Date() : null],
    );
    items.push(item.id);
  }
  return { projectId: project.id, invoiceId: invoice.id, items };
}

/** Every string value of the credentials must be absent from `text`. */
export function leaked(text: string, ...credentials: object[]): string[] {
  return credentials.flatMap((c) => Object.values(c).filter((v) => typeof v === "string" && text.includes(v)));
}
