import { randomBytes } from "node:crypto";
import type { Db } from "../../src/platform/db";
import { createToken } from "../../tools/ops/commands";
import { setIntegration } from "../../tools/ops/suppliers";
import { startFakeSupplierA } from "../fakes/supplier-a";
import { startFakeSupplierB } from "../fakes/supplier-b";

/**
 * What the latency benchmark times. The company is loaded with the demo seed first (realistic
 * clients, orders with items and payments, catalog, a mail-thread context); `ids` maps its refs.
 */
export interface BenchContext {
  ids: Record<string, any>;
  load(data: unknown): Promise<Record<string, any>>;
  db: Db;
  companyId: number;
  /** Runs after this measurement (e.g. closes fake servers a scenario started). */
  onDispose(fn: () => Promise<void>): void;
  /** The API under test (`…/api/v1`), for requests a scenario sends while it prepares. */
  api: string;
  /** How many requests the measurement sends (a scenario's `token` is called once for each). */
  requests: number;
}
export interface BenchRequest {
  method?: string;
  /** The path, or (for requests that consume what they act on) a fresh one per request. */
  path: string | (() => Promise<string>);
  /** The JSON body, or a function giving each request's (called once per request, before it is timed). */
  body?: unknown;
  /** A bearer token per request instead of the company's usual (already checked) one. */
  token?: () => Promise<string>;
  /** The status every answer must have (default 200). */
  status?: number;
  /** Request headers besides the token and the body's content type. */
  headers?: Record<string, string>;
  /** Throws when an answer (its body) is not the expected one, beyond its status. */
  check?: (body: string) => void;
}
export interface BenchScenario {
  name: string;
  /** The most database round trips this request may take (the goal printed beside the measurement). */
  goal?: number;
  prepare(ctx: BenchContext): Promise<BenchRequest>;
}

/** Fake suppliers answering after this long: longer than the database work, like real ones. */
const SUPPLIER_DELAY = "delay-100";
const connected = new WeakMap<Db, Promise<void>>();

/** Both fake suppliers, started once per measurement, connected to the bench company. */
function connectSuppliers(ctx: BenchContext) {
  let done = connected.get(ctx.db);
  if (!done) {
    done = (async () => {
      const [a, b] = await Promise.all([startFakeSupplierA(), startFakeSupplierB()]);
      ctx.onDispose(async () => void (await Promise.all([a.close(), b.close()])));
      const credsA = { customer_number: "bench", username: "bench", password: "bench" };
      const credsB = { account_number: "bench", api_key: "bench" };
      a.allow(credsA);
      b.allow(credsB);
      await setIntegration(ctx.db, {
        companyId: ctx.companyId,
        provider: "supplier_a",
        enabled: true,
        baseUrl: a.url(SUPPLIER_DELAY),
        credentials: credsA,
      });
      await setIntegration(ctx.db, {
        companyId: ctx.companyId,
        provider: "supplier_b",
        enabled: true,
        baseUrl: b.url(SUPPLIER_DELAY),
        credentials: credsB,
      });
    })();
    connected.set(ctx.db, done);
  }
  return done;
}

/**
 * One token per request, each checked once by the isolate more than a second before: a key's first
 * request reserves nothing ahead, and its next one, that long after, asks Redis for itself alone. So
 * every request waits for a Redis call (BENCH_REDIS_DELAY_MS), as a client calling a few times a
 * minute does.
 */
async function idleKeys({ ids, db, companyId, api, requests }: BenchContext): Promise<() => Promise<string>> {
  const tokens = await Promise.all(Array.from({ length: requests }, async () => (await createToken(db, { companyId })).token));
  for (const token of tokens) {
    const res = await fetch(`${api}/clients/${ids.northside}`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`idle keys: the first request answered ${res.status}`);
  }
  await new Promise((r) => setTimeout(r, 1500));
  return async () => tokens.shift()!;
}

/** A batch answer's check: every one of `n` items written (200 or 201). */
const batchAllWritten = (n: number) => (body: string) => {
  const { data } = JSON.parse(body) as { data: { status: number }[] };
  if (data.length !== n || data.some((i) => i.status !== 200 && i.status !== 201)) throw new Error(`batch: ${body.slice(0, 300)}`);
};

/** One PUT before the measurement, so the measured ones update what it created. */
async function putOnce(api: string, db: Db, companyId: number, path: string, body: unknown) {
  const { token } = await createToken(db, { companyId });
  const res = await fetch(`${api}${path}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

const thread = (n: number) => ({
  account_email: "orders@shop.example",
  subject: "Re: spring restock",
  messages: Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    internal_date: new Date(Date.UTC(2026, 2, 1, 9, i)).toISOString(),
    from: "Maya Lopez <maya@northside.example>",
    to: ["orders@shop.example"],
    snippet: "Can we add four more XL?",
    body_plain: "Hi! Can we add four more XL to the order? Thanks, Maya",
    body_html: `<p>Hi! Can we add four more XL to the order?</p><p>Thanks, Maya</p>${"<br>".repeat(50)}`,
  })),
});

/** `/orders/{id}/items/{item_id}/decorations` of the seeded order's line `item`. */
const decorationsOf = (ids: BenchContext["ids"], item: string) => `/orders/${ids["ord-northside-tees"]}/items/${ids[item]}/decorations`;
const SCREEN_PRINT = { location: "front", method: "screen_print", colors: [{ name: "Red", code: "PMS 186 C" }], color_count: 1 };
const EMBROIDERY = { location: "left_sleeve", method: "embroidery", stitch_count: 4000 };

/** Sends a POST through the API with a token of its own (a scenario's set-up, not timed); its answer's JSON. */
async function setUpPost({ api, db, companyId }: BenchContext, path: string, body: unknown) {
  const { token } = await createToken(db, { companyId });
  const res = await fetch(`${api}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

/** Adds decorations to the line item at `path`, in this order: their ids. */
async function addDecorations(ctx: BenchContext, path: string, bodies: unknown[]) {
  const ids: number[] = [];
  for (const body of bodies) ids.push((await setUpPost(ctx, path, body)).decoration.id);
  return ids;
}

/** A proof approval of the seeded order's second artwork, asked through the API. */
async function askApproval(ctx: BenchContext): Promise<{ id: number }> {
  const order = ctx.ids["ord-northside-tees"];
  return (await setUpPost(ctx, `/orders/${order}/approvals`, { artwork_ids: [ctx.ids["ord-northside-tees-a2"]], include_total: true }))
    .approval;
}

/**
 * A request to the MCP endpoint (one JSON-RPC message, answered as JSON); its check fails on a JSON-RPC
 * error and on a tool error, so the timing is of a call that did its work.
 */
const mcp = (method: string, params: Record<string, unknown> = {}): BenchRequest => ({
  method: "POST",
  path: "/mcp",
  headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
  body: { jsonrpc: "2.0", id: 1, method, params },
  check: (body) => {
    const answer = JSON.parse(body);
    if (answer.error || answer.result?.isError) throw new Error(`MCP ${method}: ${body.slice(0, 300)}`);
  },
});

export const benchScenarios: BenchScenario[] = [
  {
    name: "GET /clients (page of 25)",
    goal: 1,
    async prepare({ load }) {
      await load({
        clients: Array.from({ length: 60 }, (_, i) => ({ ref: `bc${i}`, company_name: `Bench Client ${i}`, phone: `555-01${i}` })),
      });
      return { path: "/clients" };
    },
  },
  { name: "GET /clients?q=client 4", goal: 1, prepare: async () => ({ path: "/clients?q=client%204" }) },
  { name: "GET /clients/{id}", goal: 1, prepare: async ({ ids }) => ({ path: `/clients/${ids.northside}` }) },
  {
    name: "GET /clients/{id}, token not yet checked by the isolate",
    goal: 2,
    prepare: async ({ ids, db, companyId }) => ({
      path: `/clients/${ids.northside}`,
      token: async () => (await createToken(db, { companyId })).token,
    }),
  },
  {
    name: "GET /clients/{id}, the limiter asks Redis",
    goal: 1,
    prepare: async (ctx) => ({ path: `/clients/${ctx.ids.northside}`, token: await idleKeys(ctx) }),
  },
  {
    name: "GET /clients, unknown token (401)",
    goal: 1,
    prepare: async () => ({ path: "/clients", token: async () => randomBytes(32).toString("hex"), status: 401 }),
  },
  {
    name: "POST /clients",
    goal: 2,
    prepare: async () => ({ method: "POST", path: "/clients", body: { company_name: "Created in bench" } }),
  },
  { name: "GET /orders (list with totals)", goal: 1, prepare: async () => ({ path: "/orders" }) },
  { name: "GET /orders/{id} (full order)", goal: 1, prepare: async ({ ids }) => ({ path: `/orders/${ids["ord-northside-tees"]}` }) },
  {
    name: "POST /orders (project + invoice)",
    goal: 2,
    prepare: async ({ ids }) => ({ method: "POST", path: "/orders", body: { title: "Bench order", client_id: ids.northside } }),
  },
  {
    name: "POST /orders (12 lines, a payment, an artwork)",
    goal: 2,
    prepare: async ({ ids }) => ({
      method: "POST",
      path: "/orders",
      body: {
        title: "Whole order in bench",
        client_id: ids.northside,
        items: ["S", "M", "L", "XL"].flatMap((size) =>
          ["Navy", "White", "Heather"].map((color) => ({ title: `Tee ${color} ${size}`, unit_price: "12.50", sizes: { [size]: 6 } })),
        ),
        payments: [{ amount: "100.00", paid_date: "2026-11-01", method: "card" }],
        artworks: [{ print_method: "screen_print", placements: ["front"], colors: ["Navy"] }],
      },
    }),
  },
  {
    name: "POST /clients/batch (100 creates)",
    goal: 3,
    prepare: async () => ({
      method: "POST",
      path: "/clients/batch",
      body: { items: Array.from({ length: 100 }, (_, i) => ({ method: "create", data: { company_name: `Batch client ${i}` } })) },
      check: batchAllWritten(100),
    }),
  },
  {
    name: "POST /orders/batch (100 creates, 2 lines each)",
    goal: 3,
    prepare: async ({ ids }) => ({
      method: "POST",
      path: "/orders/batch",
      body: {
        items: Array.from({ length: 100 }, (_, i) => ({
          method: "create",
          data: {
            title: `Batch order ${i}`,
            client_id: ids.northside,
            items: [
              { title: "Tee", unit_price: "9.50", quantity: 24 },
              { title: "Setup", unit_price: "25.00" },
            ],
          },
        })),
      },
      check: batchAllWritten(100),
    }),
  },
  {
    name: "PUT /clients/by-external-id (update)",
    goal: 2,
    prepare: async ({ api, db, companyId }) => {
      await putOnce(api, db, companyId, "/clients/by-external-id/bench-client", { company_name: "Upserted in bench" });
      return { method: "PUT", path: "/clients/by-external-id/bench-client", body: { company_name: "Upserted in bench" } };
    },
  },
  {
    name: "PUT /orders/by-external-id (create, 2 lines)",
    goal: 2,
    prepare: async ({ ids }) => {
      let n = 0;
      return {
        method: "PUT",
        path: async () => `/orders/by-external-id/bench-order-${Date.now()}-${n++}`,
        body: {
          title: "Upserted order",
          client_id: ids.northside,
          items: [
            { title: "Tee", unit_price: "9.50", quantity: 24 },
            { title: "Setup", unit_price: "25" },
          ],
        },
        status: 201,
      };
    },
  },
  {
    name: "PUT /orders/by-external-id (update, 2 lines replaced)",
    goal: 2,
    prepare: async ({ api, db, companyId, ids }) => {
      const body = { title: "Upserted order", client_id: ids.northside, items: [{ title: "Tee", unit_price: "9.50", quantity: 24 }] };
      await putOnce(api, db, companyId, "/orders/by-external-id/bench-order", body);
      return { method: "PUT", path: "/orders/by-external-id/bench-order", body };
    },
  },
  { name: "GET /events (page of 25)", goal: 1, prepare: async () => ({ path: "/events" }) },
  // Proof approvals (issue 42): one statement each, like every read.
  {
    name: "GET /approvals/{id}",
    goal: 1,
    prepare: async (ctx) => ({ path: `/approvals/${(await askApproval(ctx)).id}` }),
  },
  {
    name: "GET /orders/{id}/approvals",
    goal: 1,
    prepare: async (ctx) => {
      await askApproval(ctx);
      return { path: `/orders/${ctx.ids["ord-northside-tees"]}/approvals` };
    },
  },
  {
    name: "PATCH /orders/{id} (project + invoice)",
    goal: 2,
    prepare: async ({ ids }) => ({
      method: "PATCH",
      path: `/orders/${ids["ord-northside-tees"]}`,
      body: { description: "Updated in bench", deadline: "2026-03-21", discount_amount: "5", discount_amount_type: "percentage" },
    }),
  },
  {
    name: "PATCH /orders/{id}, the limiter asks Redis",
    goal: 2,
    prepare: async (ctx) => ({
      method: "PATCH",
      path: `/orders/${ctx.ids["ord-northside-tees"]}`,
      body: { description: "Updated in bench, key asking Redis" },
      token: await idleKeys(ctx),
    }),
  },
  {
    name: "POST /orders/{id}/items (append, sizes)",
    goal: 2,
    prepare: async ({ ids }) => ({
      method: "POST",
      path: `/orders/${ids["ord-northside-tees"]}/items`,
      body: { title: "Bench tee", unit_price: "12.50", sizes: { S: 2, M: 4, L: 2 } },
    }),
  },
  {
    name: "POST /orders/{id}/items, the limiter asks Redis",
    goal: 2,
    prepare: async (ctx) => ({
      method: "POST",
      path: `/orders/${ctx.ids["ord-northside-tees"]}/items`,
      body: { title: "Bench tee, key asking Redis", unit_price: "12.50" },
      token: await idleKeys(ctx),
    }),
  },
  {
    name: "PATCH /orders/{id}/items/{item_id} (move)",
    goal: 2,
    prepare: async ({ ids }) => ({
      method: "PATCH",
      path: `/orders/${ids["ord-northside-tees"]}/items/${ids["ord-northside-tees-i2"]}`,
      body: { position: 0, unit_price: "26.00" },
    }),
  },
  // A line item's decorations (issue 42): each write is an order-contents write (read, then the conditional write).
  {
    name: "POST /orders/{id}/items/{item_id}/decorations",
    goal: 2,
    prepare: async ({ ids }) => ({ method: "POST", path: decorationsOf(ids, "ord-northside-tees-i2"), body: SCREEN_PRINT }),
  },
  {
    name: "PATCH /orders/{id}/items/{item_id}/decorations/{decoration_id} (move)",
    goal: 2,
    prepare: async (ctx) => {
      const path = decorationsOf(ctx.ids, "ord-northside-tees-i2");
      const made = await addDecorations(ctx, path, [SCREEN_PRINT, EMBROIDERY]);
      return { method: "PATCH", path: `${path}/${made[1]}`, body: { position: 0, notes: "Moved in bench" } };
    },
  },
  {
    name: "POST /orders/{id}/items/{item_id}/decorations/reorder",
    goal: 2,
    prepare: async (ctx) => {
      // An item of its own decorations (the first line), put in one order and back in turn.
      const path = decorationsOf(ctx.ids, "ord-northside-tees-i1");
      const made = await addDecorations(ctx, path, [SCREEN_PRINT, EMBROIDERY, SCREEN_PRINT]);
      let n = 0;
      return { method: "POST", path: `${path}/reorder`, body: () => ({ ids: n++ % 2 ? made : [...made].reverse() }) };
    },
  },
  {
    name: "DELETE /orders/{id}/items/{item_id}/decorations/{decoration_id}",
    goal: 2,
    prepare: async (ctx) => {
      const path = decorationsOf(ctx.ids, "ord-northside-tees-i2");
      // A decoration of its own per request, added before the request is timed.
      return { method: "DELETE", path: async () => `${path}/${(await addDecorations(ctx, path, [EMBROIDERY]))[0]}` };
    },
  },
  {
    name: "POST /orders/{id}/payments",
    goal: 2,
    prepare: async ({ ids }) => ({ method: "POST", path: `/orders/${ids["ord-northside-tees"]}/payments`, body: { amount: "1.00" } }),
  },
  {
    name: "PATCH /orders/{id}/artworks/{artwork_id}",
    goal: 2,
    prepare: async ({ ids }) => ({
      method: "PATCH",
      path: `/orders/${ids["ord-northside-tees"]}/artworks/${ids["ord-northside-tees-a1"]}`,
      body: { status: "approved" },
    }),
  },
  {
    name: "DELETE /orders/{id}",
    goal: 2,
    prepare: async ({ load, ids: seeded }) => {
      let n = 0;
      return {
        method: "DELETE",
        // An order of its own per request, loaded before the request is timed.
        path: async () => {
          const ref = `bench-delete-${++n}`;
          const ids = await load({ orders: [{ ref, client_id: seeded.northside, title: "Deleted in bench" }] });
          return `/orders/${ids[ref]}`;
        },
      };
    },
  },
  { name: "GET /products/search (local + lines)", goal: 1, prepare: async () => ({ path: "/products/search?q=tee&include=local,lines" }) },
  { name: "GET /products/search (all, no integrations)", goal: 1, prepare: async () => ({ path: "/products/search?q=pc54" }) },
  {
    name: "GET /products/search (all, suppliers 100 ms)",
    async prepare(ctx) {
      await connectSuppliers(ctx);
      return { path: "/products/search?q=pc54" };
    },
  },
  {
    name: "GET /products/supplier_b (100 ms)",
    async prepare(ctx) {
      await connectSuppliers(ctx);
      return { path: "/products/supplier_b?styleId=39" };
    },
  },
  {
    name: "GET /products/invoice_item",
    goal: 1,
    prepare: async ({ ids }) => ({ path: `/products/invoice_item?id=${ids["ord-northside-tees-i1"]}` }),
  },
  { name: "GET /mail/threads/{id} (context)", goal: 1, prepare: async () => ({ path: "/mail/threads/demo-18c2f1a9b7e4d305" }) },
  {
    name: "PUT /mail/email-threads/{id} (50 msgs)",
    goal: 2,
    prepare: async () => ({ method: "PUT", path: "/mail/email-threads/bench-thread-1", body: thread(50) }),
  },
  // The MCP endpoint: the tool list reads no data; a tool call costs what its operation does (the rows above).
  { name: "MCP tools/list", goal: 0, prepare: async () => mcp("tools/list") },
  {
    name: "MCP tools/call get_client (GET /clients/{id})",
    goal: 1,
    prepare: async ({ ids }) => mcp("tools/call", { name: "get_client", arguments: { id: ids.northside } }),
  },
  {
    name: "MCP tools/call list_clients q (GET /clients?q=)",
    goal: 1,
    prepare: async () => mcp("tools/call", { name: "list_clients", arguments: { q: "client 4" } }),
  },
  {
    name: "MCP tools/call get_order (GET /orders/{id})",
    goal: 1,
    prepare: async ({ ids }) => mcp("tools/call", { name: "get_order", arguments: { id: ids["ord-northside-tees"] } }),
  },
  {
    name: "MCP tools/call create_order_item (POST /orders/{id}/items)",
    goal: 2,
    prepare: async ({ ids }) =>
      mcp("tools/call", {
        name: "create_order_item",
        arguments: { id: ids["ord-northside-tees"], title: "Bench cap", unit_price: "9.00" },
      }),
  },
];
