import { neonConfig, Pool } from "@neondatabase/serverless";
import { drizzle } from "drizzle-orm/neon-serverless";
import * as schema from "../db/schema";
import type { Bindings } from "./env";

export type Db = ReturnType<typeof drizzle<typeof schema>>;

/**
 * A Pool for one request (Workers must not reuse sockets across requests); the caller ends it
 * with waitUntil(pool.end()). Constructing it opens nothing: the first query connects.
 */
export function createDb(env: Bindings): { db: Db; pool: Pool } {
  if (env.NEON_LOCAL_PROXY) {
    // Local stack: plain ws to our proxy, which speaks raw PostgreSQL (no Neon pipelining).
    const proxy = env.NEON_LOCAL_PROXY;
    neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
  }
  const pool = new Pool({ connectionString: env.DATABASE_URL, max: 6 });
  return { db: drizzle(pool, { schema }), pool };
}

/** Any drizzle database over this schema: the Worker's Neon pool or Node's pg (CLI, tests). */
export type AnyDb = import("drizzle-orm/pg-core").PgDatabase<import("drizzle-orm/pg-core").PgQueryResultHKT, typeof schema>;
