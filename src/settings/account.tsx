import { sql } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { rowsOf } from "../platform/sql-kit";
import type { SettingsEnv } from "./context";
import { checkCsrf, field } from "./guards";
import { CsrfInput, Layout, NewPasswordFields, Notice } from "./layout";
import { hashPassword, passwordProblem, verifyPassword } from "./passwords";
import { auditSql, endSessions } from "./session";

/** `/settings/account`: change password (the current one required; ends the user's other sessions), sign out everywhere. */
export const accountRoutes = new Hono<SettingsEnv>();

function AccountPage({ c, error, notice }: { c: Context<SettingsEnv>; error?: string; notice?: string }) {
  const user = c.get("user");
  const csrf = c.get("csrfToken");
  return (
    <Layout title="Account" user={user} csrfToken={csrf} current="/settings/account">
      {error && <Notice kind="error">{error}</Notice>}
      {notice && <Notice kind="ok">{notice}</Notice>}
      <dl class="facts">
        <dt>E-mail address</dt>
        <dd>{user.email}</dd>
        <dt>Role</dt>
        <dd>{user.role}</dd>
      </dl>
      <section aria-labelledby="password-heading">
        <h2 id="password-heading">Change password</h2>
        <form method="post" action="/settings/account/password" class="stack" data-testid="password-form">
          <CsrfInput token={csrf} />
          <input type="text" name="username" autocomplete="username" value={user.email} hidden readonly />
          <label for="current_password">Current password</label>
          <input id="current_password" name="current_password" type="password" autocomplete="current-password" required maxlength={1024} />
          <NewPasswordFields label="New password" again="The new password again" hint="Changing it signs you out everywhere else." />
          <button type="submit">Change password</button>
        </form>
      </section>
      <section aria-labelledby="sessions-heading">
        <h2 id="sessions-heading">Sessions</h2>
        <p>Signs you out on every browser and device, this one included.</p>
        <form method="post" action="/settings/account/sign-out-everywhere">
          <CsrfInput token={csrf} />
          <button type="submit" class="secondary" data-testid="sign-out-everywhere">
            Sign out everywhere
          </button>
        </form>
      </section>
    </Layout>
  );
}

accountRoutes.get("/", (c) =>
  c.html(
    <AccountPage
      c={c}
      notice={c.req.query("changed") !== undefined ? "Your password is changed; your other sessions have ended." : undefined}
    />,
  ),
);

accountRoutes.post("/password", checkCsrf, async (c) => {
  const user = c.get("user");
  const db = c.get("db");
  const current = await field(c, "current_password");
  const password = await field(c, "password");
  const problem = passwordProblem(password, await field(c, "password_confirmation"));
  if (problem) return c.html(<AccountPage c={c} error={problem} />, 400);
  const [row] = rowsOf<{ password_hash: string | null }>(
    await db.execute(sql`select password_hash from company_users where id = ${user.id}`),
  );
  if (!(await verifyPassword(current, row?.password_hash)))
    return c.html(<AccountPage c={c} error="The current password is not right." />, 400);
  const hash = await hashPassword(password);
  // One statement: the new password, every other session of the user ended, the audit entry.
  await db.execute(sql`
    with changed as (update company_users set password_hash = ${hash}, password_changed_at = now() where id = ${user.id} returning id),
    others as (delete from user_sessions where user_id = ${user.id} and token_hash <> ${c.get("sessionHash")} returning id)
    ${auditSql(c, "user.password_changed", { from: sql`(select count(*) as n from others) counted`, details: sql`jsonb_build_object('other_sessions_ended', counted.n)` })}`);
  return c.redirect("/settings/account?changed", 303);
});

accountRoutes.post("/sign-out-everywhere", checkCsrf, async (c) => {
  await endSessions(c, "all");
  return c.redirect("/settings/sign-in?signed_out", 303);
});
