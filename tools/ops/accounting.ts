import { desc, eq, isNotNull, sql } from "drizzle-orm";
import { DEFAULT_BASE_URL, DEFAULT_TOKEN_URL } from "../../src/accounting/qbo";
import { accountingConnections, accountingOutbox } from "../../src/db/schema";
import type { Db } from "../../src/platform/db";
import { httpUrlOption, requireCompany } from "./commands";

const urlOption = (option: string, raw: string | undefined) => (raw === undefined ? null : httpUrlOption(option, raw));

/**
 * `accounting connect`: stores (or replaces) the company's connection. The access token is fetched
 * with the refresh token on first use. The company's waiting rows (pending or failed, handed off before
 * this connection) are due at once: the next scheduled pass sends them (see handleScheduled).
 */
export async function connectAccounting(
  db: Db,
  opts: {
    companyId: number;
    realmId: string;
    clientId: string;
    clientSecret: string;
    refreshToken: string;
    baseUrl?: string;
    tokenUrl?: string;
  },
) {
  await requireCompany(db, opts.companyId);
  const values = {
    realmId: opts.realmId,
    clientId: opts.clientId,
    clientSecret: opts.clientSecret,
    refreshToken: opts.refreshToken,
    accessToken: null,
    accessTokenExpiresAt: null,
    baseUrl: urlOption("base-url", opts.baseUrl),
    tokenUrl: urlOption("token-url", opts.tokenUrl),
    updatedAt: sql`now()`,
  };
  await db
    .insert(accountingConnections)
    .values({ companyId: opts.companyId, ...values })
    .onConflictDoUpdate({ target: accountingConnections.companyId, set: values });
  const [{ waiting }] = await db
    .select({ waiting: sql<number>`count(*)::int` })
    .from(accountingOutbox)
    .where(sql`${accountingOutbox.companyId} = ${opts.companyId} and ${accountingOutbox.status} in ('pending', 'failed')`);
  return {
    company_id: opts.companyId,
    waiting,
    realm_id: opts.realmId,
    base_url: values.baseUrl ?? DEFAULT_BASE_URL,
    token_url: values.tokenUrl ?? DEFAULT_TOKEN_URL,
  };
}

/** `accounting status`: the connection (no secrets) and the outbox counts with the latest error. */
export async function accountingStatus(db: Db, opts: { companyId: number }) {
  const [company, [conn], counts, [latest]] = await Promise.all([
    requireCompany(db, opts.companyId),
    db
      .select({
        realmId: accountingConnections.realmId,
        baseUrl: accountingConnections.baseUrl,
        expiresAt: accountingConnections.accessTokenExpiresAt,
      })
      .from(accountingConnections)
      .where(eq(accountingConnections.companyId, opts.companyId)),
    db
      .select({ status: accountingOutbox.status, n: sql<number>`count(*)::int` })
      .from(accountingOutbox)
      .where(eq(accountingOutbox.companyId, opts.companyId))
      .groupBy(accountingOutbox.status),
    db
      .select({
        id: accountingOutbox.id,
        status: accountingOutbox.status,
        operation: accountingOutbox.operation,
        invoiceId: accountingOutbox.invoiceId,
        attempts: accountingOutbox.attempts,
        error: accountingOutbox.lastError,
        at: accountingOutbox.updatedAt,
      })
      .from(accountingOutbox)
      .where(sql`${accountingOutbox.companyId} = ${opts.companyId} and ${isNotNull(accountingOutbox.lastError)}`)
      .orderBy(desc(accountingOutbox.updatedAt), desc(accountingOutbox.id))
      .limit(1),
  ]);
  const count = (status: string) => counts.find((c) => c.status === status)?.n ?? 0;
  return {
    company_id: company.id,
    sync_enabled: company.accountingSyncEnabled,
    connected: Boolean(conn),
    realm_id: conn?.realmId ?? null,
    base_url: conn ? (conn.baseUrl ?? DEFAULT_BASE_URL) : null,
    access_token_expires_at: conn?.expiresAt?.toISOString() ?? null,
    pending: count("pending"),
    failed: count("failed"),
    dead: count("dead"),
    done: count("done"),
    last_error: latest
      ? {
          outbox_id: latest.id,
          invoice_id: latest.invoiceId,
          operation: latest.operation,
          status: latest.status,
          attempts: latest.attempts,
          error: latest.error,
          at: latest.at.toISOString(),
        }
      : null,
  };
}
