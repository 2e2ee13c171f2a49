import { sql } from "drizzle-orm";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import type { UserRole } from "../db/schema/users";
import type { Db } from "../platform/db";
import { rowsOf } from "../platform/sql-kit";
import { type AuditEntrySql, auditInsertSql } from "./audit";
import type { SettingsEnv, SettingsUser } from "./context";
import { forbiddenPage } from "./errors";
import { csrfTokenFor, digest, randomSecret } from "./secrets";

/**
 * Sessions of the settings area (docs/settings.md#sessions). The cookie holds a random secret; the
 * database keeps its digest, and every settings request looks it up (one statement that also marks it
 * used), so signing out, a removed user or an ended session takes effect on the next request. A session
 * ends when idle for SETTINGS_SESSION_IDLE_SECONDS or SETTINGS_SESSION_LIFETIME_SECONDS after sign-in.
 */

export const SIGN_IN_PATH = "/settings/sign-in";

/** Served over plain http on the developer's machine only: there the cookie cannot be `Secure`. */
export function isLocal(c: Context): boolean {
  const host = new URL(c.req.url).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
}

/**
 * `__Host-` (Secure, Path=/, no Domain: no other host can set or read it) where the cookie is Secure;
 * a plain name on localhost, where browsers refuse Secure cookies over http.
 */
const cookieName = (c: Context, name: string) => (isLocal(c) ? name : `__Host-${name}`);
const SESSION = "crm_settings_session";
/** The signed-out visitor's secret, for the CSRF token of the sign-in and setup forms. */
const VISITOR = "crm_settings_visitor";

function writeCookie(c: Context, name: string, value: string, maxAge: number) {
  setCookie(c, cookieName(c, name), value, {
    path: "/",
    httpOnly: true,
    secure: !isLocal(c),
    sameSite: "Lax",
    maxAge,
  });
}

const clearCookie = (c: Context, name: string) => deleteCookie(c, cookieName(c, name), { path: "/", secure: !isLocal(c) });

/** The user of a live session with this digest, marking it used; undefined when there is none. */
async function findSession(db: Db, hash: string, idleSeconds: number): Promise<SettingsUser | undefined> {
  const [row] = rowsOf<{ id: number; company_id: number; company_name: string; email: string; role: UserRole }>(
    await db.execute(sql`
      update user_sessions s set last_seen_at = now()
      from company_users u join companies co on co.id = u.company_id
      where s.token_hash = ${hash} and u.id = s.user_id and s.expires_at > now()
        and s.last_seen_at > now() - make_interval(secs => ${idleSeconds}::int)
      returning u.id, u.company_id, co.name as company_name, u.email, u.role`),
  );
  return row && { id: row.id, companyId: row.company_id, companyName: row.company_name, email: row.email, role: row.role };
}

/**
 * Sets `user`, `csrfToken` and `sessionHash` for a live session; otherwise sends the visitor to the
 * sign-in page (a GET comes back to where it was going after signing in).
 */
export const requireUser = createMiddleware<SettingsEnv>(async (c, next) => {
  const secret = getCookie(c, cookieName(c, SESSION));
  const config = c.get("config");
  if (secret && /^[0-9a-f]{64}$/.test(secret)) {
    const hash = await digest(secret);
    const user = await findSession(c.get("db"), hash, config.SETTINGS_SESSION_IDLE_SECONDS);
    if (user) {
      c.set("user", user);
      c.set("sessionHash", hash);
      c.set("csrfToken", await csrfTokenFor(secret));
      return next();
    }
    clearCookie(c, SESSION);
  }
  const back = c.req.method === "GET" ? `?next=${encodeURIComponent(new URL(c.req.url).pathname)}` : "";
  return c.redirect(`${SIGN_IN_PATH}${back}`, 303);
});

/** Owners only: anyone else gets the 403 page. */
export const requireRole = (role: UserRole) =>
  createMiddleware<SettingsEnv>(async (c, next) => {
    if (c.get("user").role !== role) return forbiddenPage(c, "This page is for the company's owners.");
    return next();
  });

/**
 * The signed-out visitor's CSRF token (sign-in and setup forms: a login CSRF would sign the victim in
 * as the attacker): from its cookie, set here when missing.
 */
export async function visitorCsrf(c: Context<SettingsEnv>): Promise<void> {
  let secret = getCookie(c, cookieName(c, VISITOR));
  if (!secret || !/^[0-9a-f]{64}$/.test(secret)) {
    secret = randomSecret();
    writeCookie(c, VISITOR, secret, 3600);
  }
  c.set("csrfToken", await csrfTokenFor(secret));
}

/** `visitorCsrf` as middleware, before `checkCsrf` on the signed-out forms. */
export const withVisitorCsrf = createMiddleware<SettingsEnv>(async (c, next) => {
  await visitorCsrf(c);
  return next();
});

/** Where a signed-in user goes: `next` when it is a settings path of this site, else the area's home. */
export function afterSignIn(next: string | undefined): string {
  return next && /^\/settings(\/[\w/-]*)?$/.test(next) && !next.startsWith(SIGN_IN_PATH) ? next : "/settings";
}

/**
 * Starts a session for the user `userId` (an SQL expression over `from`, for a statement that also
 * sets the password) in one statement with its audit entry, which also drops the user's ended
 * sessions. A new secret every time: a session id is never carried over from before sign-in.
 * Returns the session's secret (for the cookie); false when `from` yielded no user.
 */
export async function startSession(
  c: Context<SettingsEnv>,
  opts: { with?: ReturnType<typeof sql>; userId: number | ReturnType<typeof sql>; from?: ReturnType<typeof sql>; audit: AuditEntrySql },
): Promise<boolean> {
  const config = c.get("config");
  const secret = randomSecret();
  const hash = await digest(secret);
  const user = typeof opts.userId === "number" ? sql`${opts.userId}::int` : opts.userId;
  const rows = rowsOf<{ user_id: number }>(
    await c.get("db").execute(sql`
      with ${opts.with ? sql`${opts.with},` : sql``}
      ended as (
        delete from user_sessions e ${opts.from ? sql`using ${opts.from}` : sql``}
        where e.user_id = ${user} and (e.expires_at <= now() or e.last_seen_at <= now() - make_interval(secs => ${config.SETTINGS_SESSION_IDLE_SECONDS}::int))
      ),
      started as (
        insert into user_sessions (user_id, token_hash, expires_at)
        select ${user}, ${hash}, now() + make_interval(secs => ${config.SETTINGS_SESSION_LIFETIME_SECONDS}::int)
        ${opts.from ? sql`from ${opts.from}` : sql``}
        returning user_id
      ),
      audited as (${auditInsertSql({ ...opts.audit, from: opts.audit.from ?? opts.from })})
      select user_id from started`),
  );
  if (!rows.length) return false;
  writeCookie(c, SESSION, secret, config.SETTINGS_SESSION_LIFETIME_SECONDS);
  clearCookie(c, VISITOR);
  return true;
}

/** Ends this session (sign-out) or all the user's sessions, with the audit entry, and clears the cookie. */
export async function endSessions(c: Context<SettingsEnv>, scope: "this" | "all"): Promise<void> {
  const user = c.get("user");
  const where = scope === "this" ? sql`token_hash = ${c.get("sessionHash")}` : sql`user_id = ${user.id}`;
  await c.get("db").execute(sql`
    with ended as (delete from user_sessions where ${where} returning id)
    ${auditSql(c, scope === "this" ? "user.signed_out" : "user.signed_out_everywhere", { from: sql`(select count(*) as n from ended) counted`, details: sql`jsonb_build_object('sessions_ended', counted.n)` })}`);
  clearCookie(c, SESSION);
}

/**
 * An audit entry by the signed-in user (about themself unless `extra` names another target), for a CTE
 * of the statement that makes the change or as its final statement.
 */
export function auditSql(c: Context<SettingsEnv>, action: string, extra: Partial<AuditEntrySql> = {}) {
  const user = c.get("user");
  return auditInsertSql({
    companyId: user.companyId,
    actor: { type: "user", id: user.id },
    action,
    targetType: "user",
    targetId: user.id,
    clientIp: c.get("clientIp"),
    requestId: c.get("requestId"),
    ...extra,
  });
}

export { clearCookie, cookieName, SESSION };
