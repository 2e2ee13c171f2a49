import { randomBytes } from "node:crypto";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { apiTokens, companies, TOKEN_SCOPES, type TokenScope } from "../../src/db/schema";
import { sha256Hex } from "../../src/http/auth";
import type { Db } from "../../src/platform/db";
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

/** A new token for the company; `write` (every operation) unless a read-only (GET) token is asked for. */
export async function createToken(db: Db, opts: { companyId: number; scope?: TokenScope }) {
  await requireCompany(db, opts.companyId);
  const token = randomBytes(32).toString("hex");
  const [row] = await db
    .insert(apiTokens)
    .values({ companyId: opts.companyId, tokenHash: await sha256Hex(token), scope: opts.scope ?? "write" })
    .returning({ id: apiTokens.id, scope: apiTokens.scope });
  return { token, token_id: row.id, scope: row.scope };
}

export async function revokeToken(db: Db, opts: { tokenId: number }) {
  const [row] = await db
    .update(apiTokens)
    .set({ revokedAt: sql`coalesce(${apiTokens.revokedAt}, now())` })
    .where(eq(apiTokens.id, opts.tokenId))
    .returning({ id: apiTokens.id, revokedAt: apiTokens.revokedAt });
  if (!row) throw new CommandError(`token ${opts.tokenId} does not exist`);
  return { token_id: row.id, revoked_at: row.revokedAt!.toISOString() };
}

export async function listTokens(db: Db, opts: { companyId: number }) {
  await requireCompany(db, opts.companyId);
  const rows = await db
    .select({
      id: apiTokens.id,
      scope: apiTokens.scope,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
      revokedAt: apiTokens.revokedAt,
    })
    .from(apiTokens)
    .where(eq(apiTokens.companyId, opts.companyId))
    .orderBy(asc(apiTokens.id));
  return {
    tokens: rows.map((r) => ({
      token_id: r.id,
      scope: r.scope,
      created_at: r.createdAt.toISOString(),
      last_used_at: r.lastUsedAt?.toISOString() ?? null,
      revoked_at: r.revokedAt?.toISOString() ?? null,
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
    .where(and(eq(apiTokens.tokenHash, await sha256Hex(token)), isNull(apiTokens.revokedAt)));
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
