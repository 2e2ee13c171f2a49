import { randomUUID } from "node:crypto";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { expect } from "vitest";
import { type ApiResponse, call, sql, type TestCompany, waitFor } from "./api";
import { newClient, newOrder } from "./orders";
import { LOCAL_RECEIVER, recordDelivery } from "./webhooks";

// What the checks that run over every operation of the OpenAPI document share (tenancy, scopes,
// conformance, bad input, idempotency, conditional requests, refused writes): a new route is covered
// by them without a test of its own.

/** One operation of the document: its path template, method and OpenAPI operation object. */
export type Operation = { path: string; method: string; op: Record<string, any> };

/** Whether the operation declares this request header (`If-Match`, `idempotency-key` …). */
export const declares = (header: string) => (operation: Operation) =>
  operation.op.parameters?.some((p: { in: string; name: string }) => p.in === "header" && p.name === header) ?? false;

/** Every operation of the document that takes a bearer token (health and the document itself do not). */
export async function tokenOperations(): Promise<Operation[]> {
  const doc = (await call("GET", "/openapi.json")).body;
  return Object.entries(doc.paths as Record<string, Record<string, any>>)
    .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })))
    .filter(({ op }) => op.security?.length !== 0);
}

/** The tables companyRows compares (see there), `and` a further condition on `table_name`. */
const companyTables = (and = "true") =>
  sql<{ table_name: string }>(
    `select table_name from information_schema.columns
     where table_schema = 'public' and column_name = 'company_id' and table_name not in ('api_tokens', 'audit_entries')
       and table_name not like 'request\\_logs%' and (${and}) order by table_name`,
  );

/**
 * Every row of every table that has a company_id, for this company (tokens aside: last_used_at moves;
 * the audit trail aside: it records the settings area's and the CLI's actions, such as the tokens a test
 * makes, never an API operation's; the request log and its day partitions: each request's entry, the
 * company's own included, arrives after its answer; events without their payload, which every change
 * fills after its commit, once), in one statement (tests compare it dozens of times). `and`: as for
 * companyTables. Each table's rows are in a fixed order, so two readings of the same rows are equal.
 */
export async function companyRows(companyId: number, and?: string) {
  const tables = await companyTables(and);
  const parts = tables.map(
    ({ table_name: t }) =>
      `'${t}', (select coalesce(jsonb_agg(x order by x::text), '[]') from (select to_jsonb(r) ${t === "webhook_events" ? "- 'payload'" : ""} x from "${t}" r where company_id = $1) s)`,
  );
  const [row] = await sql<{ rows: Record<string, unknown[]> }>(`select jsonb_build_object(${parts.join(", ")}) rows`, [companyId]);
  return row.rows;
}

/**
 * A company with one of everything (a client; an order with an item, a payment and an artwork, and a
 * tax; a status; an email thread and its cached mail context; a webhook endpoint with a failed delivery), each named
 * with `marker`, and what it takes to call any operation on them: `concrete` is an operation's URL
 * with their ids (and the query it needs), `missing` the same with ids that address nothing,
 * `addressesRow` whether the two differ (the operation names a row by id), `body` a valid body for
 * each operation that takes one (a test that needs one fails on a new operation until it has one
 * here), and `wrongBody` one that must be refused.
 */
export async function populated(co: TestCompany) {
  // In a name of every row, so an answer that shows one of them contains it.
  const marker = `m${randomUUID().slice(0, 8)}`;
  // GET /me shows the company's name.
  await sql("update companies set name = $2 where id = $1", [co.companyId, `Company ${marker}`]);
  const clientId = await newClient(co, { company_name: `Client ${marker}`, external_id: `client-${marker}` });
  const { project } = await newOrder(co, { client_id: clientId, title: `Order ${marker}`, external_id: `order-${marker}` });
  // A status no order has (so it can be deleted), and a tax the order's invoice has (deleted after the order).
  const status = await co.post("/statuses", { name: `Status ${marker}`, color: "#1E88E5" });
  const tax = await co.post("/taxes", { name: `Tax ${marker}`, rate: "8.875" });
  const taxed = await co.patch(`/orders/${project.id}`, { tax_id: tax.body.tax?.id });
  const item = await co.post(`/orders/${project.id}/items`, { title: `Tees ${marker}`, quantity: 10, unit_price: "10.00" });
  const payment = await co.post(`/orders/${project.id}/payments`, { amount: "5.00" });
  const artwork = await co.post(`/orders/${project.id}/artworks`, { status: "approved" });
  // A proof approval of the artwork (its link is never used here).
  // Two, so the list has a second page.
  await co.post(`/orders/${project.id}/approvals`, { artwork_ids: [artwork.body.artwork?.id] });
  const approval = await co.post(`/orders/${project.id}/approvals`, {
    artwork_ids: [artwork.body.artwork?.id],
    message: `Approval ${marker}`,
  });
  const decoration = await co.post(`/orders/${project.id}/items/${item.body.item.id}/decorations`, {
    location: "front",
    method: "screen_print",
    artwork_id: artwork.body.artwork.id,
    notes: `Decoration ${marker}`,
  });
  const legacyThreadId = `thread-${randomUUID()}`;
  const thread = await co.put(`/mail/email-threads/${legacyThreadId}`, {
    account_email: "orders@shop.example",
    messages: [],
    subject: `Thread ${marker}`,
  });
  // The mail add-on's cached context for the same thread, tied to the company by its client.
  await sql("insert into mail_thread_contexts (legacy_thread_id, client_id) values ($1, $2)", [legacyThreadId, String(clientId)]);
  // Subscribed to an event nothing here causes, so no delivery is added or attempted while a test compares rows.
  const endpoint = await co.post("/webhook-endpoints", {
    url: LOCAL_RECEIVER,
    events: ["client.deleted"],
    description: `Endpoint ${marker}`,
  });
  expect([
    approval.status,
    item.status,
    payment.status,
    artwork.status,
    thread.status,
    endpoint.status,
    status.status,
    tax.status,
    taxed.status,
  ]).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200]);
  expect(decoration.status, JSON.stringify(decoration.body)).toBe(200);
  const endpointId: number = endpoint.body.webhook_endpoint.id;
  const { deliveryId } = await recordDelivery(co, endpointId, { status: "failed" });
  // Every event's payload is filled after its change's commit: the feed shows them, with the marker.
  await waitFor(
    "the fixture's event payloads",
    () => sql("select 1 from webhook_events where company_id = $1 and payload is null", [co.companyId]),
    (rows) => rows.length === 0,
  );
  const [event] = await sql<{ event_id: string }>("select event_id from webhook_events where company_id = $1 order by id limit 1", [
    co.companyId,
  ]);
  // A request whose request log entry carries the marker (its id), written by the queue's consumer after its answer.
  const requestId = `fixture-${marker}`;
  await co.get("/me", { headers: { "x-request-id": requestId } });
  const entries = await waitFor(
    "the fixture's request log entry",
    async () => (await co.get(`/request-logs?operation=getMe`)).body.data ?? [],
    (data) => data.some((e: { request_id: string }) => e.request_id === requestId),
  );
  const fixtureEntryAt = Date.parse(entries.find((e: { request_id: string }) => e.request_id === requestId).created_at);
  const params: Record<string, string | number> = {
    request_id: requestId,
    item_id: item.body.item.id,
    payment_id: payment.body.payment.id,
    artwork_id: artwork.body.artwork.id,
    decoration_id: decoration.body.decoration.id,
    delivery_id: deliveryId,
    source: "invoice_item",
    legacyThreadId,
  };
  // `{id}` and `{external_id}` are of the resource of the path's first segment.
  const ids: Record<string, number | string> = {
    clients: clientId,
    orders: project.id,
    "webhook-endpoints": endpointId,
    statuses: status.body.status.id,
    taxes: tax.body.tax.id,
    events: event.event_id,
    approvals: approval.body.approval.id,
  };
  const externalIds: Record<string, string> = { clients: `client-${marker}`, orders: `order-${marker}` };
  const bodies: Record<string, unknown> = {
    createClient: { company_name: "Another Co" },
    updateClient: { company_name: "Renamed Co" },
    createOrder: { title: "Another order", client_id: clientId },
    updateOrder: { title: "Renamed order" },
    createOrderItem: { title: "Setup", quantity: 1, unit_price: "25.00" },
    updateOrderItem: { title: "Renamed item" },
    createOrderPayment: { amount: "5.00" },
    updateOrderPayment: { amount: "6.00" },
    createOrderArtwork: { status: "approved" },
    createOrderApproval: { artwork_ids: [artwork.body.artwork.id], include_total: true },
    updateOrderArtwork: { status: "sent" },
    // The reorder runs before the create (the document's order): the item's one decoration.
    updateOrderItemDecorationOrder: { ids: [decoration.body.decoration.id] },
    createOrderItemDecoration: { location: "left_sleeve", method: "embroidery", stitch_count: 4000 },
    updateOrderItemDecoration: { notes: "Renamed decoration", position: 0 },
    putEmailThread: { account_email: "orders@shop.example", messages: [], subject: "Another subject" },
    createWebhookEndpoint: { url: LOCAL_RECEIVER, events: ["client.deleted"] },
    updateWebhookEndpoint: { description: "Renamed endpoint" },
    upsertClient: { company_name: `Client ${marker} upserted` },
    upsertOrder: { title: `Order ${marker} upserted`, client_id: clientId },
    batchClients: { items: [{ method: "create", data: { company_name: "Batch Co" } }] },
    batchOrders: { items: [{ method: "create", data: { title: "Batch order", client_id: clientId } }] },
    createStatus: { name: "Another status" },
    updateStatus: { name: "Renamed status", position: 0 },
    createTax: { name: "Another tax", rate: "5" },
    // A new rate: its write also changes the order that has the tax.
    updateTax: { name: "Renamed tax", rate: "7.25" },
  };
  const body = ({ path, method, op }: Operation) => {
    if (!op.requestBody) return undefined;
    expect(bodies[op.operationId], `${method.toUpperCase()} ${path}: a valid body in test/support/operations.ts`).toBeDefined();
    return bodies[op.operationId];
  };
  type Pick = (name: string) => string | number;
  // The query an operation needs; an id in it addresses a row like a path parameter.
  const queries: Record<string, (id: Pick) => string> = {
    getEmailThread: () => "?account_email=orders%40shop.example",
    getProduct: (id) => `?id=${id("item_id")}`, // an invoice_item product is an invoice item
    searchProducts: () => `?q=${marker}`,
    // The fixture's entry and nothing later: entries land up to a second after their requests, so the
    // requests a test sends after it could change the page between two reads, or push it off the page.
    listRequestLogs: () => `?operation=getMe&until=${encodeURIComponent(new Date(fixtureEntryAt + 1).toISOString())}`,
  };
  const url = ({ path, op }: Operation, id: Pick) =>
    path.replace(/\{([^}]+)\}/g, (_, name: string) => String(id(name))) + (queries[op.operationId]?.(id) ?? "");
  const resource = (operation: Operation) => operation.path.split("/")[1];
  const concrete = (operation: Operation) =>
    url(operation, (name) =>
      name === "id"
        ? ids[resource(operation)]
        : name === "external_id"
          ? encodeURIComponent(externalIds[resource(operation)])
          : params[name],
    );
  const missing = (operation: Operation) =>
    url(operation, (name) =>
      name === "source"
        ? params.source
        : name === "legacyThreadId" || name === "external_id" || name === "request_id"
          ? `none-${randomUUID()}`
          : name === "id" && resource(operation) === "events"
            ? `evt_${randomUUID().replace(/-/g, "")}`
            : 2147483000,
    );
  return {
    marker,
    concrete,
    missing,
    /** Whether the operation addresses a row by an id (in its path or its query). */
    addressesRow: (operation: Operation) => concrete(operation) !== missing(operation),
    body,
    /** The fixture's valid body for the operation, or undefined where it has none (a new operation). */
    knownBody: ({ op }: Operation) => bodies[op.operationId],
    /** The valid body with its first field swapped for a value of another JSON type, and that field. */
    wrongBody: (operation: Operation) => {
      const valid = body(operation) as Record<string, unknown>;
      const [field, value] = Object.entries(valid)[0];
      const wrong = value !== null && typeof value === "object" && !Array.isArray(value) ? "text" : { not: "this" };
      return { field, body: { ...valid, [field]: wrong } };
    },
  };
}

/**
 * Operations in an order in which each can succeed on the fixture: reads first, then writes, then
 * deletes, a nested row's before its parent's.
 */
export function inRunnableOrder(operations: Operation[]): Operation[] {
  const rank = ({ method }: Operation) => (method === "get" ? 0 : method === "delete" ? 2 : 1);
  return [...operations].sort((x, y) => rank(x) - rank(y) || (rank(x) === 2 ? y.path.length - x.path.length : 0));
}

/** A validator of values against schemas of the OpenAPI document (whose `$ref`s resolve inside it), and the document. */
async function documentSchemas() {
  const doc = (await call("GET", "/openapi.json")).body;
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; `example` and the like are annotations, not errors.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi.json");
  const compiled = new Map<string, ValidateFunction>();
  /** The errors of `value` against `schema` (one of the document's), none when it matches. */
  const errors = (schema: unknown, value: unknown) => {
    // The operation's schema refers to the document's components: resolved inside the document.
    const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/');
    let validate = compiled.get(text);
    if (!validate) {
      validate = ajv.compile(JSON.parse(text));
      compiled.set(text, validate);
    }
    return validate(value) ? [] : validate.errors;
  };
  return { doc, errors };
}

/**
 * Checks an answer against what the OpenAPI document (and so the generated SDK) promises for its
 * operation: the status is one the operation documents, the body matches that status's JSON schema,
 * and every header documented as required is there.
 */
export async function documentChecker() {
  const { doc, errors } = await documentSchemas();
  return ({ path, method, op }: Operation, res: ApiResponse) => {
    const what = `${method.toUpperCase()} ${path} → ${res.status}`;
    const response = op.responses[String(res.status)];
    expect(response, `${what}: a status the document lists (${Object.keys(op.responses)})`).toBeDefined();
    for (const [name, declared] of Object.entries<{ required?: boolean; $ref?: string }>(response.headers ?? {})) {
      const header = declared.$ref ? doc.components.headers[declared.$ref.split("/").pop()!] : declared;
      if (header.required) expect(res.headers.has(name), `${what}: header ${name}`).toBe(true);
    }
    const schema = response.content?.["application/json"]?.schema;
    if (!schema) {
      expect(res.body, `${what}: no body`).toBe("");
      return;
    }
    expect(errors(schema, res.body), `${what}: ${JSON.stringify(res.body).slice(0, 300)}`).toEqual([]);
  };
}

/**
 * Checks a request the API accepted against the operation's request schemas in the document, so a
 * client that validates its requests by the document (or a validating proxy) sends it too: the JSON
 * body, and query parameters given as `name → values` (an array parameter's values as sent, one per
 * repetition).
 */
export async function requestChecker() {
  const { doc, errors } = await documentSchemas();
  return ({ path, method, op }: Operation, request: { body?: unknown; query?: Record<string, string[]> }) => {
    const what = `${method.toUpperCase()} ${path}`;
    if (request.body !== undefined) {
      const body = op.requestBody?.$ref ? doc.components.requestBodies[op.requestBody.$ref.split("/").pop()!] : op.requestBody;
      const schema = body?.content?.["application/json"]?.schema;
      expect(schema, `${what}: a documented JSON body`).toBeDefined();
      expect(errors(schema, request.body), `${what}: the body ${JSON.stringify(request.body).slice(0, 300)}`).toEqual([]);
    }
    for (const [name, values] of Object.entries(request.query ?? {})) {
      const param = (op.parameters ?? []).find((p: { in: string; name: string }) => p.in === "query" && p.name === name);
      expect(param, `${what}: query parameter ${name} documented`).toBeDefined();
      const value = param.schema?.type === "array" ? values : values[0];
      expect(errors(param.schema, value), `${what}: ?${name}=${values.join(`&${name}=`)}`).toEqual([]);
    }
  };
}
