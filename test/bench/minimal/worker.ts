import { neon, neonConfig } from "@neondatabase/serverless";
import { drizzle } from "drizzle-orm/neon-http";
import { Hono } from "hono";
import * as schema from "../../../src/db/schema";
import { serializeClient } from "../../../src/domain/client";
import { findLiveClient } from "../../../src/routes/clients/queries";

type Env = { DATABASE_URL: string; NEON_LOCAL_PROXY: string };

/**
 * The throughput baseline: the same SELECT and serialisation as GET /clients/{id}, over the plain
 * driver, with nothing else (no auth, limiter, logging, deadlines). The company comes in the query.
 */
const app = new Hono<{ Bindings: Env }>();
let db: ReturnType<typeof drizzle<typeof schema>> | undefined;
app.get("/clients/:id", async (c) => {
  if (!db) {
    // Once per isolate, as the API does.
    neonConfig.fetchEndpoint = () => `http://${c.env.NEON_LOCAL_PROXY}/sql`;
    db = drizzle(neon(c.env.DATABASE_URL), { schema });
  }
  const row = await findLiveClient(db, Number(c.req.query("company")), Number(c.req.param("id")));
  return row ? c.json({ client: serializeClient(row.client) }) : c.json({ error: "not found" }, 404);
});

export default app;
