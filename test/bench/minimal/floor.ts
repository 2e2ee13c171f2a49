import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/neon-http";
import { Hono } from "hono";
import { clients } from "../../../src/db/schema/clients";
import { company, live, type MinimalEnv, sqlOverHttp } from "./driver";

/**
 * The cold path's floor (`npm run bench:cpu`): a fresh isolate's first `GET /clients/{id}` with the
 * API's dependencies for it and nothing of ours beyond the clients table: hono, the Neon driver's SQL
 * over HTTP and drizzle, one SELECT, the row as JSON. No token, limiter, validation, serialisation or
 * log line. The minimal Worker (worker.ts) is the warm baseline instead: it serialises as the API does,
 * which imports the API's domain modules and with them zod.
 */
const app = new Hono<{ Bindings: MinimalEnv }>();
let db: ReturnType<typeof drizzle> | undefined;

app.get("/clients/:id", async (c) => {
  db ??= drizzle(sqlOverHttp(c.env));
  const where = and(live(company(c)), eq(clients.id, Number(c.req.param("id"))));
  const [row] = await db.select().from(clients).where(where).limit(1);
  return row ? c.json({ client: row }) : c.json({ error: "not found" }, 404);
});

export default app;
