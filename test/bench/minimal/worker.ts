import { asc, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/neon-http";
import { Hono } from "hono";
import * as schema from "../../../src/db/schema";
import { clients } from "../../../src/db/schema";
import { serializeClient } from "../../../src/domain/client";
import { findLiveClient } from "../../../src/routes/clients/queries";
import { loadOrderDetail } from "../../../src/routes/orders/queries";
import { serializeOrderDetail } from "../../../src/routes/orders/serialize";
import { company, live, type MinimalEnv, sqlOverHttp } from "./driver";

/**
 * The benchmarks' baseline: what the measured requests do with nothing else (no auth, limiter, logging,
 * validation, deadlines), over the same driver: the same SELECTs and serialisation as GET /clients/{id}
 * and GET /orders/{id}, a page of 25 clients with their total, and a client's INSERT. The company comes
 * in the query.
 */
const app = new Hono<{ Bindings: MinimalEnv }>();
let db: ReturnType<typeof drizzle<typeof schema>> | undefined;
app.use(async (c, next) => {
  if (!db) {
    // Once per isolate, as the API does.
    db = drizzle(sqlOverHttp(c.env), { schema });
  }
  await next();
});

app.get("/clients/:id", async (c) => {
  const row = await findLiveClient(db!, company(c), Number(c.req.param("id")));
  return row ? c.json({ client: serializeClient(row.client) }) : c.json({ error: "not found" }, 404);
});

app.get("/clients", async (c) => {
  // One statement, as the API's: the page and the total.
  const where = live(company(c));
  const total = sql<number>`(select count(*) from ${clients} where ${where})`.mapWith(Number);
  const rows = await db!.select({ client: clients, total }).from(clients).where(where).orderBy(asc(clients.id)).limit(25);
  const pagination = { page: 1, per_page: 25, total: rows[0]?.total ?? 0, next_cursor: null };
  return c.json({ data: rows.map((r) => serializeClient(r.client)), pagination });
});

app.post("/clients", async (c) => {
  const body = await c.req.json<{ company_name: string; email?: string }>();
  const [row] = await db!
    .insert(clients)
    .values({ companyId: company(c), companyName: body.company_name, email: body.email })
    .returning();
  return c.json({ client: serializeClient(row) });
});

app.get("/orders/:id", async (c) => {
  const order = await loadOrderDetail(db!, company(c), Number(c.req.param("id")));
  if (!order) return c.json({ error: "not found" }, 404);
  return c.json(serializeOrderDetail(order));
});

export default app;
