import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import { apiTokens, companies, TOKEN_SCOPES, type TokenScope } from "../../src/db/schema";
import { sha256Hex } from "../../src/http/auth";
import type { RedisSettings } from "../../src/http/revocations";
import * as tokens from "../../src/http/tokens";
import { TOKEN_EXPIRY_DAYS, tokenInputErrors, tokenStatus } from "../../src/http/tokens";
import type { Db } from "../../src/platform/db";
import { cliConfig } from "./config";
import { CommandError } from "./errors";
import { importData } from "./import/index";
import { parseRecord } from "./import/kit";
import { insertStatuses, insertTaxes, statusCreateSchema, taxCreateSchema } from "./settings";

/** Operator commands; the admin CLI, the demo seed and the tests all call these. */
export async function createCompany(db: Db, opts: { name: string; accountingSync?: boolean }) {
  const [row] = await db
    .insert(companies)
    .values({ name: opts.name, accountingSyncEnabled: opts.accountingSync ?? false })
    .returning({ id: companies.id });
  return { company_id: row.id };
}

/** The company row (id and accounting flag); an unknown id is bad operator input. */
export async function requireCompany(db: Db, companyId: number) {
  const [row] = await db
    .select({ id: companies.id, accountingSyncEnabled: companies.accountingSyncEnabled })
    .from(companies)
    .where(eq(companies.id, companyId));
  if (!row) throw new CommandError(`company ${companyId} does not exist`);
  return row;
}

/**
 * An operator-given endpoint (`--<option>`): an absolute http(s) URL without credentials (those
 * belong in their own options, and a URL ends up in output), returned without trailing slashes.
 */
export function httpUrlOption(option: string, raw: string, credentialsHint?: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:"))
    throw new CommandError(`--${option} must be an absolute http(s) URL`);
  if (url.username || url.password) {
    throw new CommandError(`--${option} must not carry credentials${credentialsHint ? `; ${credentialsHint}` : ""}`);
  }
  return url.toString().replace(/\/+$/, "");
}

/** A token scope given by an operator (`--scope`); anything but read or write is bad input. */
export function tokenScope(raw: string): TokenScope {
  if (!(TOKEN_SCOPES as readonly string[]).includes(raw)) throw new CommandError(`--scope must be one of: ${TOKEN_SCOPES.join(", ")}`);
  return raw as TokenScope;
}

/** A new token for the company (through the settings area's token service); `write` unless a read-only (GET) token is asked for. */
export async function createToken(db: Db, opts: { companyId: number; scope?: TokenScope; name?: string; expiresInDays?: number }) {
  await requireCompany(db, opts.companyId);
  const input = { name: opts.name, scope: opts.scope ?? "write", expiresInDays: opts.expiresInDays ?? null };
  const errors = tokenInputErrors(input);
  if (errors.name) throw new CommandError(`--name: ${errors.name}`);
  if (errors.expires_in_days) throw new CommandError(`--expires-in-days must be one of ${TOKEN_EXPIRY_DAYS.join(", ")}`);
  const { token, row } = await tokens.createToken(db, {
    companyId: opts.companyId,
    name: opts.name?.trim() ?? null,
    scope: input.scope,
    expiresInDays: input.expiresInDays,
    actor: { type: "system" },
  });
  return { token, token_id: row.id, scope: row.scope, name: row.name, expires_at: row.expiresAt?.toISOString() ?? null };
}

/**
 * Revokes the token; every isolate refuses it from its next request on when Redis took the revocation
 * (`propagated`), else within the token cache's 30 s. `redis` defaults to the CLI's settings.
 */
export async function revokeToken(db: Db, opts: { tokenId: number; redis?: RedisSettings }) {
  const revoked = await tokens.revokeToken(db, opts.redis ?? cliConfig(), { tokenId: opts.tokenId, actor: { type: "system" } });
  if (!revoked) throw new CommandError(`token ${opts.tokenId} does not exist`);
  return { token_id: revoked.row.id, revoked_at: revoked.row.revokedAt!.toISOString(), propagated: revoked.propagated };
}

export async function listTokens(db: Db, opts: { companyId: number }) {
  await requireCompany(db, opts.companyId);
  // Oldest first, as the operator made them (the settings area shows the newest first).
  const rows = (await tokens.listTokens(db, opts)).reverse();
  return {
    tokens: rows.map((r) => ({
      token_id: r.id,
      name: r.name,
      scope: r.scope,
      last_four: r.lastFour,
      created_by: r.createdByEmail,
      created_at: r.createdAt.toISOString(),
      last_used_at: r.lastUsedAt?.toISOString() ?? null,
      expires_at: r.expiresAt?.toISOString() ?? null,
      revoked_at: r.revokedAt?.toISOString() ?? null,
      status: tokenStatus(r),
    })),
  };
}

export async function importFile(db: Db, opts: { companyId: number; data: unknown }) {
  await requireCompany(db, opts.companyId);
  return importData(db, opts.companyId, opts.data);
}

export async function findCompanyByName(db: Db, name: string) {
  const [row] = await db.select({ id: companies.id }).from(companies).where(eq(companies.name, name)).limit(1);
  return row?.id;
}

export async function tokenIsLive(db: Db, token: string) {
  const [row] = await db
    .select({ id: apiTokens.id })
    .from(apiTokens)
    .where(
      and(
        eq(apiTokens.tokenHash, await sha256Hex(token)),
        isNull(apiTokens.revokedAt),
        or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, sql`now()`)),
      ),
    );
  return Boolean(row);
}

/** An order status for the company; without a position it goes after the last one. */
export async function createOrderStatus(db: Db, opts: { companyId: number; name: string; position?: number }) {
  await requireCompany(db, opts.companyId);
  const record = parseRecord(statusCreateSchema(), { name: opts.name, position: opts.position }, "status");
  const [id] = await insertStatuses(db, opts.companyId, [record]);
  return { status_id: id };
}

/** A tax row for the company; `rate` is a percent (0–100, up to 4 decimals), e.g. "8.875". */
export async function createTax(db: Db, opts: { companyId: number; name: string; rate: string }) {
  await requireCompany(db, opts.companyId);
  const record = parseRecord(taxCreateSchema(), { name: opts.name, rate: opts.rate }, "tax");
  const [id] = await insertTaxes(db, opts.companyId, [record]);
  return { tax_id: id };
}
