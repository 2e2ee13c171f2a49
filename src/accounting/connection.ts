import { eq, sql } from "drizzle-orm";
import { accountingConnections } from "../db/schema/accounting";
import type { Db } from "../platform/db";
import { DEFAULT_BASE_URL, DEFAULT_TOKEN_URL, QboClient, refreshAccessToken, type TokenSource } from "./qbo";

export type Connection = typeof accountingConnections.$inferSelect;

/** Refresh a little before the expiry the token endpoint announced. */
const EXPIRY_MARGIN_MS = 60_000;

const usable = (token: string | null, expiresAt: Date | null): token is string =>
  Boolean(token && expiresAt && expiresAt.getTime() - EXPIRY_MARGIN_MS > Date.now());

type Fresh = Awaited<ReturnType<typeof refreshAccessToken>>;

/**
 * Refreshes whose tokens were not saved (the database failed after the token endpoint answered), by
 * company: the refresh token they replaced, and what the endpoint gave. The endpoint has already made
 * the old refresh token unusable, so the next refresh in this isolate saves these instead of asking again.
 */
const unsaved = new Map<number, { replaced: string; fresh: Fresh }>();

/**
 * Access tokens of one company's connection. A refresh runs with the connection row locked, so
 * concurrent consumers refresh once and the rotated refresh token is saved every time (the old one
 * stops working): if saving fails, the tokens are kept (`unsaved`) and saved by the next refresh.
 * Concurrent refreshes in this isolate share one request.
 */
export class ConnectionTokens implements TokenSource {
  private refreshing?: Promise<string>;

  constructor(
    private readonly db: Db,
    private conn: Connection,
  ) {}

  async token(): Promise<string> {
    if (usable(this.conn.accessToken, this.conn.accessTokenExpiresAt)) return this.conn.accessToken;
    return this.refresh(this.conn.accessToken ?? "");
  }

  refresh(rejected: string): Promise<string> {
    this.refreshing ??= this.refreshLocked(rejected).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refreshLocked(rejected: string): Promise<string> {
    this.conn = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(accountingConnections)
        .where(eq(accountingConnections.companyId, this.conn.companyId))
        .for("update");
      // Another consumer refreshed while we waited for the lock: use its token.
      if (row.accessToken !== rejected && usable(row.accessToken, row.accessTokenExpiresAt)) return row;
      const kept = unsaved.get(row.companyId);
      const fresh =
        kept?.replaced === row.refreshToken
          ? kept.fresh
          : await refreshAccessToken({ ...row, tokenUrl: row.tokenUrl ?? DEFAULT_TOKEN_URL });
      // Kept until the update below commits: a failure from here on would otherwise lose the only usable refresh token.
      unsaved.set(row.companyId, { replaced: row.refreshToken, fresh });
      const [saved] = await tx
        .update(accountingConnections)
        .set({
          accessToken: fresh.accessToken,
          refreshToken: fresh.refreshToken,
          accessTokenExpiresAt: new Date(Date.now() + fresh.expiresIn * 1000),
          updatedAt: sql`now()`,
        })
        .where(eq(accountingConnections.companyId, row.companyId))
        .returning();
      return saved;
    });
    if (unsaved.get(this.conn.companyId)?.fresh.refreshToken === this.conn.refreshToken) unsaved.delete(this.conn.companyId);
    return this.conn.accessToken!;
  }
}

export async function loadConnection(db: Db, companyId: number): Promise<Connection | undefined> {
  const [row] = await db.select().from(accountingConnections).where(eq(accountingConnections.companyId, companyId));
  return row;
}

/** The v3 client bound to one company's realm and tokens: a company's rows only ever use this. */
export function companyClient(db: Db, conn: Connection) {
  return new QboClient({ baseUrl: conn.baseUrl ?? DEFAULT_BASE_URL, realmId: conn.realmId, tokens: new ConnectionTokens(db, conn) });
}
