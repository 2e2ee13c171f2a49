import { sql } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { USER_ROLES } from "../db/schema/users";
import { grantKey } from "../http/grants";
import { markRevoked } from "../http/revocations";
import { rowsOf } from "../platform/sql-kit";
import type { SettingsEnv } from "./context";
import { notFoundPage } from "./errors";
import { checkCsrf, field } from "./guards";
import { CsrfInput, Layout, Notice, RowAction, ShownOnce } from "./layout";
import { auditSql, requireRole } from "./session";
import { createUserWithLink, type NewUser, UserError } from "./setup-links";

/**
 * `/settings/users` (owners only): the company's users; invite (the page shows the setup link to pass
 * on), change a role, remove. A company always keeps an owner: the change and that check are one
 * statement that locks the company's owners, so two owners demoting each other at once cannot both win.
 * Another company's user ids answer as missing ones.
 */
export const usersRoutes = new Hono<SettingsEnv>();
usersRoutes.use("*", requireRole("owner"));

interface Row {
  id: number;
  email: string;
  role: string;
  set_up: boolean;
  created_at: string;
}

async function listUsers(c: Context<SettingsEnv>): Promise<Row[]> {
  return rowsOf<Row>(
    await c.get("db").execute(sql`
      select id, email, role, password_hash is not null as set_up, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"') as created_at
      from company_users where company_id = ${c.get("user").companyId} order by id`),
  );
}

async function UsersPage({ c, error, notice, invited }: { c: Context<SettingsEnv>; error?: string; notice?: string; invited?: NewUser }) {
  const me = c.get("user");
  const csrf = c.get("csrfToken");
  const users = await listUsers(c);
  return (
    <Layout title="Users" user={me} csrfToken={csrf} current="/settings/users">
      {error && <Notice kind="error">{error}</Notice>}
      {notice && <Notice kind="ok">{notice}</Notice>}
      {invited && (
        <ShownOnce id="setup-url" heading={`Setup link for ${invited.user.email}`} value={invited.setup_url} copyLabel="Copy link">
          <p>
            Pass this link on to them. It works once, until {invited.expires_at.slice(0, 16).replace("T", " ")} UTC, and is not shown again.
          </p>
        </ShownOnce>
      )}
      <div class="table-wrap">
        <table>
          <caption>Everyone who can sign in to {me.companyName}'s settings</caption>
          <thead>
            <tr>
              <th scope="col">E-mail address</th>
              <th scope="col">Role</th>
              <th scope="col">Since</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr data-testid="user-row" data-user-id={String(u.id)}>
                <td>
                  {u.email}
                  {u.id === me.id && " (you)"}
                  {!u.set_up && <span class="badge">setup link not used yet</span>}
                </td>
                <td>
                  <form method="post" action={`/settings/users/${u.id}/role`} class="inline">
                    <CsrfInput token={csrf} />
                    <label class="visually-hidden" for={`role-${u.id}`}>
                      Role of {u.email}
                    </label>
                    <select id={`role-${u.id}`} name="role">
                      {USER_ROLES.map((r) => (
                        <option value={r} selected={r === u.role}>
                          {r}
                        </option>
                      ))}
                    </select>
                    <button type="submit" class="secondary" data-testid="change-role">
                      Change role
                    </button>
                  </form>
                </td>
                <td>{u.created_at}</td>
                <td>
                  <RowAction action={`/settings/users/${u.id}/remove`} csrf={csrf} testid="remove-user" label={`Remove ${u.email}`}>
                    Remove
                  </RowAction>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <section aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite a user</h2>
        <form method="post" action="/settings/users" class="stack" data-testid="invite-form">
          <CsrfInput token={csrf} />
          <label for="invite-email">E-mail address</label>
          <input id="invite-email" name="email" type="email" required maxlength={254} autocomplete="off" />
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">
            <option value="developer">developer: tokens, webhooks</option>
            <option value="owner">owner: everything, and users</option>
          </select>
          <button type="submit">Invite</button>
        </form>
      </section>
    </Layout>
  );
}

usersRoutes.get("/", async (c) => c.html(<UsersPage c={c} />));

usersRoutes.post("/", checkCsrf, async (c) => {
  const me = c.get("user");
  try {
    const invited = await createUserWithLink(c.get("db"), {
      companyId: me.companyId,
      email: await field(c, "email"),
      role: await field(c, "role"),
      baseUrl: new URL(c.req.url).origin,
      actor: { type: "user", id: me.id },
      clientIp: c.get("clientIp"),
      requestId: c.get("requestId"),
    });
    return c.html(<UsersPage c={c} invited={invited} />, 201);
  } catch (e) {
    if (e instanceof UserError) return c.html(<UsersPage c={c} error={e.message} />, e.code === "email_taken" ? 409 : 400);
    throw e;
  }
});

/** A user id from the path, or undefined (answered as a missing user). */
const userId = (c: Context<SettingsEnv>) => {
  const raw = c.req.param("id") ?? "";
  return /^\d{1,9}$/.test(raw) ? Number(raw) : undefined;
};

/**
 * The statement's shared start: the target (this company's user with that id, else nothing) and the
 * company's owners, locked: a concurrent change of an owner waits, then sees the owners as that change
 * left them (PostgreSQL re-reads a locked row that changed), so the last owner is never changed away.
 */
const targetAndOwners = (companyId: number, id: number) => sql`
  target as (select id, email, role from company_users where id = ${id}::int and company_id = ${companyId}::int),
  owners as (select id from company_users where company_id = ${companyId}::int and role = 'owner' for update),
  others_owning as (select count(*) as n from owners where id <> ${id}::int)`;

usersRoutes.post("/:id/role", checkCsrf, async (c) => {
  const me = c.get("user");
  const id = userId(c);
  const role = await field(c, "role");
  if (id === undefined) return notFoundPage(c);
  if (role !== "owner" && role !== "developer") return c.html(<UsersPage c={c} error="The role must be owner or developer." />, 400);
  const [result] = rowsOf<{ found: number; changed: number }>(
    await c.get("db").execute(sql`
      with ${targetAndOwners(me.companyId, id)},
      changed as (
        update company_users u set role = ${role} from target, others_owning
        where u.id = target.id and target.role <> ${role} and (${role} = 'owner' or target.role <> 'owner' or others_owning.n > 0)
        returning u.id, target.email, target.role as old_role
      ),
      audited as (${auditSql(c, "user.role_changed", { targetId: sql`changed.id`, details: sql`jsonb_build_object('email', changed.email, 'from', changed.old_role, 'to', ${role}::text)`, from: sql`changed` })})
      select (select count(*) from target)::int as found, (select count(*) from changed)::int as changed,
        (select role from target) as old_role`),
  );
  if (!result.found) return notFoundPage(c);
  const old = (result as unknown as { old_role: string }).old_role;
  if (!result.changed && old !== role) return c.html(<UsersPage c={c} error="The company must keep at least one owner." />, 409);
  if (id === me.id) return c.redirect(role === "owner" ? "/settings/users" : "/settings/account", 303);
  return c.html(<UsersPage c={c} notice="The role is changed." />);
});

usersRoutes.post("/:id/remove", checkCsrf, async (c) => {
  const me = c.get("user");
  const id = userId(c);
  if (id === undefined) return notFoundPage(c);
  // Their sessions, setup links and the apps they allowed (OAuth grants) go with them (foreign keys); tokens
  // they made stay the company's. The grants' cached access tokens are refused on every isolate's next
  // request once the revoke below answers (the statement reads them before its cascade).
  const [result] = rowsOf<{ found: number; removed: number; grants: number[] }>(
    await c.get("db").execute(sql`
      with ${targetAndOwners(me.companyId, id)},
      removed as (
        delete from company_users u using target, others_owning
        where u.id = target.id and (target.role <> 'owner' or others_owning.n > 0)
        returning u.id, target.email, target.role
      ),
      audited as (${auditSql(c, "user.removed", { targetId: sql`removed.id`, details: sql`jsonb_build_object('email', removed.email, 'role', removed.role)`, from: sql`removed` })})
      select (select count(*) from target)::int as found, (select count(*) from removed)::int as removed,
        array(select g.id from oauth_grants g where g.user_id in (select id from removed) and g.revoked_at is null) as grants`),
  );
  if (!result.found) return notFoundPage(c);
  if (!result.removed) return c.html(<UsersPage c={c} error="The company must keep at least one owner." />, 409);
  if (result.grants.length) await markRevoked(c.get("config"), await Promise.all(result.grants.map(grantKey)));
  if (id === me.id) return c.redirect("/settings/sign-in?signed_out", 303);
  return c.html(<UsersPage c={c} notice="The user is removed; their sessions have ended." />);
});
