import { SQL, sql } from "drizzle-orm";
import { type ActorType, auditEntries } from "../db/schema/users";
import type { Db } from "../platform/db";

/**
 * The settings area's audit trail (audit_entries): who did what to which target, when. Each action's
 * entry is written by the statement that makes the change (`auditInsertSql` in a CTE), so the change
 * and its entry commit together; `recordAudit` writes one on its own (a failed sign-in changes nothing).
 */
export interface AuditEntry {
  companyId: number;
  actor: { type: ActorType; id: number | string | null };
  /** `user.signed_in`, `user.sign_in_failed`, `user.signed_out`, `user.invited`, `token.created`, … */
  action: string;
  targetType?: string;
  targetId?: number | string;
  /** What the action changed or named: never a secret. */
  details?: Record<string, unknown>;
  clientIp?: string;
  requestId?: string;
}

const text = (v: number | string | null | undefined) => (v === undefined || v === null ? null : String(v));

/** The entry's row for drizzle's insert. */
export const auditRow = (e: AuditEntry): typeof auditEntries.$inferInsert => ({
  companyId: e.companyId,
  actorType: e.actor.type,
  actorId: text(e.actor.id),
  action: e.action,
  targetType: e.targetType ?? null,
  targetId: text(e.targetId),
  details: e.details ?? {},
  clientIp: e.clientIp ?? null,
  requestId: e.requestId ?? null,
});

/** Writes one entry (its own statement). */
export async function recordAudit(db: Db, e: AuditEntry): Promise<void> {
  await db.insert(auditEntries).values(auditRow(e));
}

/** A value, or an SQL expression over the statement's CTEs (a user id from `RETURNING`). */
type Sqlish<T> = T | SQL;
/** A value as a typed parameter, an expression as it is, or null. */
const value = (v: Sqlish<number | string> | null | undefined, cast: "int" | "text"): SQL =>
  v === undefined || v === null
    ? sql`null`
    : v instanceof SQL
      ? sql`(${v})::${sql.raw(cast)}`
      : sql`${cast === "text" ? String(v) : v}::${sql.raw(cast)}`;

export interface AuditEntrySql {
  companyId: Sqlish<number>;
  actor: { type: ActorType; id: Sqlish<number | string> | null };
  action: string;
  targetType?: string;
  targetId?: Sqlish<number | string>;
  details?: Record<string, unknown> | SQL;
  clientIp?: string;
  requestId?: string;
  /** The rows to write one entry per (`changed`, a CTE's name): one entry per row. Without it, one entry. */
  from?: SQL;
}

/**
 * `insert into audit_entries … select …`, for a CTE of the statement that makes the change, so the
 * change and its entry commit together (or neither does).
 */
export function auditInsertSql(e: AuditEntrySql): SQL {
  const details = e.details ?? {};
  return sql`insert into audit_entries (company_id, actor_type, actor_id, action, target_type, target_id, details, client_ip, request_id)
    select ${value(e.companyId, "int")}, ${e.actor.type}::text, ${value(e.actor.id, "text")}, ${e.action}::text,
      ${e.targetType ?? null}::text, ${value(e.targetId, "text")},
      ${details instanceof SQL ? details : sql`${JSON.stringify(details)}::jsonb`},
      ${e.clientIp ?? null}::text, ${e.requestId ?? null}::text
    ${e.from ? sql`from ${e.from}` : sql``}`;
}
