import { sql } from "drizzle-orm";
import type { ActorType, UserRole } from "../db/schema/users";
import { type Db, databaseFailure } from "../platform/db";
import { rowsOf } from "../platform/sql-kit";
import { auditInsertSql } from "./audit";
import { digest, randomSecret } from "./secrets";

/**
 * Company users and their one-time setup links (docs/settings.md#setup-links): the operator CLI's
 * `user create` and the users page's invite both make a user this way. The link's secret is shown
 * once (in the URL); the database keeps its digest. Valid SETUP_LINK_HOURS, used once.
 */
export const SETUP_LINK_HOURS = 24;
export const SETUP_PATH = "/settings/setup/";
/** A deliberately loose check (one @, no spaces, dotted labels in the domain), at most 254 characters (RFC 5321). */
export const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

export class UserError extends Error {
  constructor(
    readonly code: "email_taken" | "company_not_found" | "invalid_email" | "invalid_role",
    message: string,
  ) {
    super(message);
  }
}

export interface NewUser {
  user: { id: number; company_id: number; email: string; role: UserRole; created_at: string };
  setup_url: string;
  expires_at: string;
}

/** Makes the user and their setup link, and the audit entry, in one statement. */
export async function createUserWithLink(
  db: Db,
  opts: {
    companyId: number;
    email: string;
    role: string;
    baseUrl: string;
    actor: { type: ActorType; id: number | null };
    clientIp?: string;
    requestId?: string;
  },
): Promise<NewUser> {
  const email = opts.email.trim();
  if (email.length > 254 || !EMAIL.test(email)) throw new UserError("invalid_email", "Give a valid e-mail address.");
  if (opts.role !== "owner" && opts.role !== "developer") throw new UserError("invalid_role", "The role must be owner or developer.");
  const secret = randomSecret();
  const hash = await digest(secret);
  let rows: { id: number; company_id: number; email: string; role: UserRole; created_at: string; expires_at: string }[];
  try {
    rows = rowsOf(
      await db.execute(sql`
        with co as (select id from companies where id = ${opts.companyId}::int),
        u as (
          insert into company_users (company_id, email, role)
          select id, ${email}, ${opts.role} from co
          returning id, company_id, email, role, created_at
        ),
        link as (
          insert into user_setup_links (user_id, token_hash, expires_at)
          select id, ${hash}, now() + make_interval(hours => ${SETUP_LINK_HOURS}::int) from u
          returning expires_at
        ),
        audited as (${auditInsertSql({
          companyId: sql`u.company_id`,
          actor: opts.actor,
          action: "user.invited",
          targetType: "user",
          targetId: sql`u.id`,
          details: sql`jsonb_build_object('email', u.email, 'role', u.role)`,
          clientIp: opts.clientIp,
          requestId: opts.requestId,
          from: sql`u`,
        })})
        select u.id, u.company_id, u.email, u.role, to_json(u.created_at)#>>'{}' as created_at, to_json(link.expires_at)#>>'{}' as expires_at
        from u, link`),
    );
  } catch (e) {
    const failure = databaseFailure(e);
    if (failure?.kind === "input" && failure.sqlState === "23505")
      throw new UserError("email_taken", "A user with this e-mail address already exists.");
    throw e;
  }
  const [row] = rows;
  if (!row) throw new UserError("company_not_found", `Company ${opts.companyId} not found`);
  const { expires_at, ...user } = row;
  return { user, setup_url: `${withoutTrailingSlashes(opts.baseUrl)}${SETUP_PATH}${secret}`, expires_at };
}

/** The user a setup link is for, while it is valid (unused and unexpired); undefined otherwise. */
export async function validSetupLink(db: Db, secret: string): Promise<{ userId: number; email: string } | undefined> {
  if (!/^[0-9a-f]{64}$/.test(secret)) return undefined;
  const [row] = rowsOf<{ user_id: number; email: string }>(
    await db.execute(sql`
      select l.user_id, u.email from user_setup_links l join company_users u on u.id = l.user_id
      where l.token_hash = ${await digest(secret)} and l.used_at is null and l.expires_at > now()`),
  );
  return row && { userId: row.user_id, email: row.email };
}

function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === "/") end--;
  return url.slice(0, end);
}
