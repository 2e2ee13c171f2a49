import { expect } from "vitest";
import { call, sql, type TestCompany } from "./api";
import { newOrder } from "./orders";
import { LOCAL_RECEIVER, recordDelivery } from "./webhooks";

/** Shared checks run over every operation of the OpenAPI document, so a new route is covered by them. */
export type Operation = { path: string; method: string; op: Record<string, any> };

/** Every operation of the document that takes a bearer token (health and the document itself do not). */
export async function tokenOperations(): Promise<Operation[]> {
  const doc = (await call("GET", "/openapi.json")).body;
  return Object.entries(doc.paths as Record<string, Record<string, any>>)
    .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })))
    .filter(({ op }) => op.security?.length !== 0);
}

/** Every row of every table that has a company_id, for this company (tokens aside: last_used_at moves). */
export async function companyRows(companyId: number) {
  const tables = await sql<{ table_name: string }>(
    `select table_name from information_schema.columns
     where table_schema = 'public' and column_name = 'company_id' and table_name <> 'api_tokens' order by table_name`,
  );
  const out: Record<string, unknown[]> = {};
  for (const { table_name } of tables) {
    out[table_name] = (
      await sql<{ row: unknown }>(`select to_jsonb(t) as row from "${table_name}" t where company_id = $1 order by 1::text`, [companyId])
    )
      .map((r) => r.row)
      .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
  }
  return out;
}

/**
 * A company with one of everything (an order with an item, a payment and an artwork; a webhook
 * endpoint with a failed delivery), and a function that puts their ids in a path's parameters.
 */
export async function populated(co: TestCompany) {
  const { project } = await newOrder(co);
  const item = await co.post(`/orders/${project.id}/items`, { title: "Tees", quantity: 10, unit_price: "10.00" });
  const payment = await co.post(`/orders/${project.id}/payments`, { amount: "5.00" });
  const artwork = await co.post(`/orders/${project.id}/artworks`, { status: "approved" });
  // Subscribed to an event nothing here causes, so no delivery is added or attempted while a test compares rows.
  const endpoint = await co.post("/webhook-endpoints", { url: LOCAL_RECEIVER, events: ["client.deleted"] });
  expect([item.status, payment.status, artwork.status, endpoint.status]).toEqual([200, 200, 200, 200]);
  const endpointId: number = endpoint.body.webhook_endpoint.id;
  const { deliveryId } = await recordDelivery(co, endpointId, { status: "failed" });
  const params: Record<string, string | number> = {
    item_id: item.body.item.id,
    payment_id: payment.body.payment.id,
    artwork_id: artwork.body.artwork.id,
    delivery_id: deliveryId,
    source: "catalog",
    legacyThreadId: "thread-1",
  };
  const clientId: number = project.client_id;
  // `{id}` is the resource of the path's first segment.
  const ids: Record<string, number> = { clients: clientId, orders: project.id, "webhook-endpoints": endpointId };
  return {
    clientId,
    concrete: (path: string) =>
      path.replace(/\{([^}]+)\}/g, (_, name: string) => String(name === "id" ? ids[path.split("/")[1]] : (params[name] ?? 1))),
  };
}
