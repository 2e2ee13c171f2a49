import { neon, neonConfig } from "@neondatabase/serverless";
import { and, eq, isNull } from "drizzle-orm";
import { clients } from "../../../src/db/schema/clients";

/** The bindings the benchmarks' baseline Workers read: the local stack's database and its Neon stand-in. */
export type MinimalEnv = { DATABASE_URL: string; NEON_LOCAL_PROXY: string };

/** The Neon driver's SQL over HTTP to the local stack, as the API sets it up (once per isolate). */
export function sqlOverHttp(env: MinimalEnv) {
  neonConfig.fetchEndpoint = () => `http://${env.NEON_LOCAL_PROXY}/sql`;
  return neon(env.DATABASE_URL);
}

/** The company from the request's query: the baselines take no token. */
export const company = (c: { req: { query(name: string): string | undefined } }) => Number(c.req.query("company"));

/** The company's clients not deleted. */
export const live = (companyId: number) => and(eq(clients.companyId, companyId), isNull(clients.deletedAt));
