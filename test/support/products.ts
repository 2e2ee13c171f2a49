import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { setIntegration } from "../../tools/ops/suppliers";
import { type FakeSupplierA, type SanMarCredentials, startFakeSupplierA } from "../fakes/supplier-a";
import { type FakeSupplierB, type SsCredentials, startFakeSupplierB } from "../fakes/supplier-b";
import { db, sql, type TestCompany } from "./api";

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
export async function connectSupplierA(
  companyId: number,
  fake: FakeSupplierA,
  scenario = "ok",
  opts: { enabled?: boolean; valid?: boolean } = {},
) {
  const credentials = sanMarCredentials();
  if (opts.valid !== false) fake.allow(credentials);
  await setIntegration(db(), {
    companyId,
    provider: "supplier_a",
    enabled: opts.enabled ?? true,
    baseUrl: fake.url(scenario),
    credentials,
  });
  return credentials;
}

export async function connectSupplierB(
  companyId: number,
  fake: FakeSupplierB,
  scenario = "ok",
  opts: { enabled?: boolean; valid?: boolean } = {},
) {
  const credentials = ssCredentials();
  if (opts.valid !== false) fake.allow(credentials);
  await setIntegration(db(), {
    companyId,
    provider: "supplier_b",
    enabled: opts.enabled ?? true,
    baseUrl: fake.url(scenario),
    credentials,
  });
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
 * One order (client → project → default invoice) with the given invoice lines, through the admin import;
 * the deleted variants are then marked with SQL (no API call creates them). Returns the ids.
 */
export async function addOrder(co: TestCompany, lines: LineInput[], opts: { projectDeleted?: boolean; invoiceDeleted?: boolean } = {}) {
  const ids = await co.load({
    clients: [{ ref: "client", company_name: "Order client" }],
    orders: [
      {
        ref: "order",
        client_ref: "client",
        title: "Order",
        items: lines.map((line, i) => ({
          ref: `item${i}`,
          title: line.title,
          description: line.description ?? null,
          quantity: line.quantity ?? "1",
          unit_price: line.unit_price ?? "0",
        })),
      },
    ],
  });
  const projectId: number = ids.order;
  const items: number[] = lines.map((_, i) => ids[`item${i}`]);
  // A breakdown that does not add up to the quantity (stored data may hold one; the import refuses it).
  await sql(`update invoice_items set sizes = '{"M": 2}' where id = any($1::int[])`, [items]);
  const [{ id: invoiceId }] = await sql<{ id: number }>("select id from invoices where project_id = $1", [projectId]);
  if (opts.projectDeleted) await sql("update projects set deleted_at = now() where id = $1", [projectId]);
  if (opts.invoiceDeleted) await sql("update invoices set deleted_at = now() where id = $1", [invoiceId]);
  const deleted = items.filter((_, i) => lines[i].deleted);
  if (deleted.length) await sql("update invoice_items set deleted_at = now() where id = any($1)", [deleted]);
  return { projectId, invoiceId, items };
}

/** Every string value of the credentials must be absent from `text`. */
export function leaked(text: string, ...credentials: object[]): string[] {
  return credentials.flatMap((c) => Object.values(c).filter((v) => typeof v === "string" && text.includes(v)));
}
