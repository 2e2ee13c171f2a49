import { type SQL, sql } from "drizzle-orm";
import type { TokenScope } from "../db/schema/companies";
import { MAX_TOKEN_CACHE_TTL_MS } from "../platform/config";
import type { Db } from "../platform/db";
import { rowsOf } from "../platform/sql-kit";
import { auditInsertSql } from "./audit";
import { sha256Hex } from "./auth";
import { markRevoked, type RedisSettings } from "./revocations";

/*
 * The one token service: the settings area's pages and the operator CLI (tools/ops/commands.ts) create,
 * list, roll and revoke API tokens through it. No API operation reaches it: a token cannot make a token.
 * Each change and its audit entry are one statement. Only the token's SHA-256 digest is stored; the token
 * itself is returned once, by create and roll.
 */

/** Expiries a token may be given, in days (or none). */
export const TOKEN_EXPIRY_DAYS = [7, 30, 90, 365] as const;
/** How long a rolled token keeps working beside its successor. */
export const ROLL_OVERLAPS = { none: 0, "1h": 3600, "24h": 86_400, "7d": 604_800 } as const;
export type RollOverlap = keyof typeof ROLL_OVERLAPS;
export const NAME_MAX = 100;

/*
 * A roll's overlap ends by the old token's expires_at, which the isolates' caches hold: every overlap but
 * "none" (a revocation) is longer than a cache entry lives, so each isolate has re-read the shortened
 * expires_at before it comes.
 */
if (Math.min(...Object.values(ROLL_OVERLAPS).filter((s) => s > 0)) * 1000 <= MAX_TOKEN_CACHE_TTL_MS)
  throw new Error("a roll's overlap must outlast the token cache");

/** Who acts: a settings-area user (with the request's address and id), or the operator (the CLI). */
export type Actor = { type: "user"; userId: number; clientIp?: string | null; requestId?: string | null } | { type: "system" };

export interface TokenRow {
  id: number;
  companyId: number;
  name: string | null;
  scope: TokenScope;
  lastFour: string | null;
  createdByUserId: number | null;
  /** The maker's address; null for the CLI, or a removed user. */
  createdByEmail: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export type TokenStatus = "active" | "expired" | "revoked";

export const tokenStatus = (t: Pick<TokenRow, "revokedAt" | "expiresAt">, now = Date.now()): TokenStatus =>
  t.revokedAt ? "revoked" : t.expiresAt && t.expiresAt.getTime() <= now ? "expired" : "active";

const HEX = /^[0-9a-f]{64}$/;

/** 32 random bytes as 64 lowercase hex characters: the token format the contract fixes. */
export function newTokenSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  if (!HEX.test(token)) throw new Error("token generation failed");
  return token;
}

/** What a create or roll asks for, checked: the messages name the field (the page shows them beside it). */
export function tokenInputErrors(input: { name?: unknown; scope?: unknown; expiresInDays?: unknown }): Record<string, string> {
  const errors: Record<string, string> = {};
  if (input.name !== undefined) {
    const name = typeof input.name === "string" ? input.name.trim() : "";
    if (!name) errors.name = "Give the token a name";
    else if (name.length > NAME_MAX) errors.name = `At most ${NAME_MAX} characters`;
  }
  if (input.scope !== "read" && input.scope !== "write") errors.scope = "Choose read or write";
  if (input.expiresInDays !== null && !(TOKEN_EXPIRY_DAYS as readonly unknown[]).includes(input.expiresInDays))
    errors.expires_in_days = `Choose ${TOKEN_EXPIRY_DAYS.join(", ")} days or no expiry`;
  return errors;
}

const ms = (v: unknown) => (v === null || v === undefined ? null : new Date(Number(v)));
const epochMs = (column: SQL) => sql`(extract(epoch from ${column}) * 1000)::float8`;

/** The columns of a token row as `TokenRow` reads them, from the alias `t` (and `u`, its maker). */
const TOKEN_COLUMNS = sql`t.id, t.company_id, t.name, t.scope, t.last_four, t.created_by_user_id,
  ${epochMs(sql`t.created_at`)} as created_at, ${epochMs(sql`t.last_used_at`)} as last_used_at,
  ${epochMs(sql`t.expires_at`)} as expires_at, ${epochMs(sql`t.revoked_at`)} as revoked_at`;

type RawRow = Record<string, unknown>;

const tokenRow = (r: RawRow): TokenRow => ({
  id: Number(r.id),
  companyId: Number(r.company_id),
  name: (r.name as string | null) ?? null,
  scope: r.scope as TokenScope,
  lastFour: (r.last_four as string | null) ?? null,
  createdByUserId: r.created_by_user_id === null || r.created_by_user_id === undefined ? null : Number(r.created_by_user_id),
  createdByEmail: (r.created_by_email as string | null) ?? null,
  createdAt: ms(r.created_at)!,
  lastUsedAt: ms(r.last_used_at),
  expiresAt: ms(r.expires_at),
  revokedAt: ms(r.revoked_at),
});

/** An audit entry's insert, reading its target from the CTE `target` (columns id, company_id). */
const auditFrom = (actor: Actor, action: string, details: SQL) =>
  auditInsertSql({
    companyId: sql`target.company_id`,
    actor: actor.type === "user" ? { type: "user", id: actor.userId } : { type: "system", id: null },
    action,
    targetType: "api_token",
    targetId: sql`target.id`,
    details,
    clientIp: actor.type === "user" ? (actor.clientIp ?? undefined) : undefined,
    requestId: actor.type === "user" ? (actor.requestId ?? undefined) : undefined,
    from: sql`target`,
  });

const userId = (actor: Actor) => (actor.type === "user" ? actor.userId : null);

export interface CreatedToken {
  /** The token itself: shown once, never stored. */
  token: string;
  row: TokenRow;
}

/** A new token for the company. `expiresInDays` null: no expiry. */
export async function createToken(
  db: Db,
  opts: { companyId: number; name: string | null; scope: TokenScope; expiresInDays: number | null; actor: Actor },
): Promise<CreatedToken> {
  const token = newTokenSecret();
  const hash = await sha256Hex(token);
  const expires = opts.expiresInDays === null ? sql`null::timestamptz` : sql`now() + make_interval(days => ${opts.expiresInDays}::int)`;
  const result = await db.execute(sql`
    with target as (
      insert into api_tokens (company_id, token_hash, scope, name, created_by_user_id, expires_at, last_four)
      values (${opts.companyId}, ${hash}, ${opts.scope}, ${opts.name}, ${userId(opts.actor)}, ${expires}, ${token.slice(-4)})
      returning *
    ), audit as (
      ${auditFrom(opts.actor, "token.created", sql`jsonb_build_object('name', ${opts.name}::text, 'scope', ${opts.scope}::text, 'expires_in_days', ${opts.expiresInDays}::int)`)}
    )
    select ${TOKEN_COLUMNS}, (select email from company_users u where u.id = t.created_by_user_id) as created_by_email
    from target t`);
  return { token, row: tokenRow(rowsOf<RawRow>(result)[0]) };
}

/** The company's tokens, newest first, with their makers' addresses. */
export async function listTokens(db: Db, opts: { companyId: number }): Promise<TokenRow[]> {
  const result = await db.execute(sql`
    select ${TOKEN_COLUMNS}, u.email as created_by_email
    from api_tokens t left join company_users u on u.id = t.created_by_user_id and u.company_id = t.company_id
    where t.company_id = ${opts.companyId}
    order by t.id desc`);
  return rowsOf<RawRow>(result).map(tokenRow);
}

export interface Revoked {
  row: TokenRow;
  /** False when Redis did not take the revocation: isolates that cached the token may serve it up to 30 s more. */
  propagated: boolean;
}

/**
 * Revokes a token: of the company when one is given (another company's id answers like a missing one),
 * any token for the operator. Revoking a revoked token changes nothing. Every isolate refuses it from its
 * next request on once this returns (revocations.ts).
 */
export async function revokeToken(
  db: Db,
  redis: RedisSettings,
  opts: { tokenId: number; companyId?: number; actor: Actor },
): Promise<Revoked | undefined> {
  const company = opts.companyId === undefined ? sql`true` : sql`company_id = ${opts.companyId}`;
  const result = await db.execute(sql`
    with target as (
      update api_tokens set revoked_at = coalesce(revoked_at, now())
      where id = ${opts.tokenId} and ${company}
      returning *
    ), audit as (
      ${auditFrom(opts.actor, "token.revoked", sql`'{}'::jsonb`)}
    )
    select ${TOKEN_COLUMNS}, t.token_hash, (select email from company_users u where u.id = t.created_by_user_id) as created_by_email
    from target t`);
  const [raw] = rowsOf<RawRow>(result);
  if (!raw) return undefined;
  return { row: tokenRow(raw), propagated: await markRevoked(redis, [String(raw.token_hash)]) };
}

export interface Rolled extends CreatedToken {
  /** The old token: revoked (overlap none) or expiring at the overlap's end. */
  old: TokenRow;
  propagated: boolean;
}

/**
 * Rolls a live token of the company: a new token with the same name, scope and lifetime (expiry length),
 * and the old one working for the overlap (none: revoked at once). One statement; a revoked, expired or
 * another company's token answers undefined.
 */
export async function rollToken(
  db: Db,
  redis: RedisSettings,
  opts: { tokenId: number; companyId: number; overlap: RollOverlap; actor: Actor },
): Promise<Rolled | undefined> {
  const token = newTokenSecret();
  const hash = await sha256Hex(token);
  const seconds = ROLL_OVERLAPS[opts.overlap];
  const revokeNow = seconds === 0;
  const result = await db.execute(sql`
    with prev as (
      select * from api_tokens
      where id = ${opts.tokenId} and company_id = ${opts.companyId} and revoked_at is null and (expires_at is null or expires_at > now())
      for update
    ), old as (
      update api_tokens o set
        revoked_at = ${revokeNow ? sql`now()` : sql`o.revoked_at`},
        expires_at = ${revokeNow ? sql`o.expires_at` : sql`least(coalesce(o.expires_at, 'infinity'), now() + make_interval(secs => ${seconds}::int))`}
      from prev where o.id = prev.id
      returning o.*
    ), fresh as (
      insert into api_tokens (company_id, token_hash, scope, name, created_by_user_id, expires_at, last_four)
      select prev.company_id, ${hash}, prev.scope, prev.name, ${userId(opts.actor)},
        case when prev.expires_at is null then null else now() + (prev.expires_at - prev.created_at) end, ${token.slice(-4)}
      from prev
      returning *
    ), target as (
      select id, company_id from old
    ), audit as (
      ${auditFrom(opts.actor, "token.rolled", sql`jsonb_build_object('overlap', ${opts.overlap}::text, 'new_token_id', (select id from fresh))`)}
    )
    select 'old' as which, ${TOKEN_COLUMNS}, t.token_hash, null::text as created_by_email from old t
    union all
    select 'new' as which, ${TOKEN_COLUMNS}, null, (select email from company_users u where u.id = t.created_by_user_id) from fresh t`);
  const rows = rowsOf<RawRow>(result);
  const old = rows.find((r) => r.which === "old");
  const fresh = rows.find((r) => r.which === "new");
  if (!old || !fresh) return undefined;
  const propagated = revokeNow ? await markRevoked(redis, [String(old.token_hash)]) : true;
  return { token, row: tokenRow(fresh), old: tokenRow(old), propagated };
}
