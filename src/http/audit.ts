import { SQL, sql } from "drizzle-orm";
import { type ActorType, auditEntries } from "../db/schema/users";
import type { Db } from "../platform/db";
import { deleteInBatches } from "../platform/sql-kit";

/*
 * An audit entry (audit_entries: who did what to which target, when) as a CTE of the statement that
 * makes the change, so the change and its entry commit together (or neither does). The one builder:
 * the token service (tokens.ts) and the settings area's pages (src/settings/audit.ts re-exports it)
 * write their entries through it.
 */

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

/** Audit entries are kept this long (the settings area's Audit log shows them), then dropped by the cron pass. */
export const AUDIT_RETENTION_DAYS = 90;

/** The cron pass's retention: entries older than AUDIT_RETENTION_DAYS, oldest first (index on created_at). */
export const purgeOldAuditEntries = (db: Db): Promise<number> =>
  deleteInBatches(db, {
    table: auditEntries,
    where: sql`created_at < now() - make_interval(days => ${AUDIT_RETENTION_DAYS})`,
    orderBy: sql`created_at`,
  });
