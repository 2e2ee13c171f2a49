import { type ActorType, auditEntries } from "../db/schema/users";
import type { Db } from "../platform/db";

/** The one builder of an audit entry's insert inside a change's statement (the token service uses it too). */
export { type AuditEntrySql, auditInsertSql } from "../http/audit";

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
