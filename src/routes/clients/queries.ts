import { and, asc, eq, sql } from "drizzle-orm";
import { clients } from "../../db/schema/clients";
import { liveClients as live } from "../../domain/client";
import { etagSql } from "../../http/etag";
import type { Db } from "../../platform/db";

/** A client's strong ETag: every write to the row bumps `updated_at`. */
export const clientEtag = etagSql(clients.id, [clients.updatedAt]);

/** A live client of the company with its ETag, or undefined (another company's client looks the same as none). Works inside a transaction too. */
export async function findLiveClient(db: Db, companyId: number, id: number) {
  const [row] = await db
    .select({ client: clients, etag: clientEtag })
    .from(clients)
    .where(and(live(companyId), eq(clients.id, id)))
    .limit(1);
  return row;
}

/** Case-insensitive exact email match; when several live clients share it, the oldest (lowest id) wins. */
export async function findLiveClientByEmail(db: Db, companyId: number, email: string) {
  const [row] = await db
    .select({ client: clients, etag: clientEtag })
    .from(clients)
    .where(and(live(companyId), sql`lower(${clients.email}) = lower(${email})`))
    .orderBy(asc(clients.id))
    .limit(1);
  return row;
}
