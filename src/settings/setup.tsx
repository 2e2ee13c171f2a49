import { sql } from "drizzle-orm";
import { type Context, Hono } from "hono";
import type { SettingsEnv } from "./context";
import { errorPage } from "./errors";
import { checkCsrf, field } from "./guards";
import { CsrfInput, Layout, NewPasswordFields, Notice } from "./layout";
import { hashPassword, passwordProblem } from "./passwords";
import { digest } from "./secrets";
import { startSession, visitorCsrf, withVisitorCsrf } from "./session";
import { validSetupLink } from "./setup-links";

/**
 * `/settings/setup/<secret>`: the one-time link where a new user chooses a password (fields `password`
 * and `password_confirmation`), then is signed in. A used, expired or unknown link gets the same page.
 */
export const setupRoutes = new Hono<SettingsEnv>();

const invalidLink = (c: Context<SettingsEnv>) =>
  errorPage(
    c,
    404,
    "Link not valid",
    "This setup link is not valid: it was used already, it expired, or it never existed. Ask your company's owner or your operator for a new one.",
  );

function SetupForm({ c, secret, email, error }: { c: Context<SettingsEnv>; secret: string; email: string; error?: string }) {
  return (
    <Layout title="Choose your password">
      <p>
        Signing in as <strong data-testid="setup-email">{email}</strong>.
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      <form method="post" action={`/settings/setup/${secret}`} class="stack" data-testid="setup-form">
        <CsrfInput token={c.get("csrfToken")} />
        <input type="text" name="username" autocomplete="username" value={email} hidden readonly />
        <NewPasswordFields
          label="New password"
          again="The same password again"
          hint="A long phrase is easier to remember than a short string of symbols."
        />
        <button type="submit">Set password and sign in</button>
      </form>
    </Layout>
  );
}

setupRoutes.get("/:secret", async (c) => {
  const secret = c.req.param("secret");
  const link = await validSetupLink(c.get("db"), secret);
  if (!link) return invalidLink(c);
  await visitorCsrf(c);
  return c.html(<SetupForm c={c} secret={secret} email={link.email} />);
});

setupRoutes.post("/:secret", withVisitorCsrf, checkCsrf, async (c) => {
  const secret = c.req.param("secret");
  const db = c.get("db");
  const link = await validSetupLink(db, secret);
  if (!link) return invalidLink(c);
  const password = await field(c, "password");
  const confirmation = await field(c, "password_confirmation");
  const problem = passwordProblem(password, (await c.req.parseBody()).password_confirmation === undefined ? undefined : confirmation);
  if (problem) return c.html(<SetupForm c={c} secret={secret} email={link.email} error={problem} />, 400);
  const hash = await hashPassword(password);
  // One statement: the link is used (only if still unused and unexpired: two posts of the same link
  // cannot both pass), the password set, the user's other sessions ended, a session started, audited.
  const started = await startSession(c, {
    with: sql`link as (
          update user_setup_links set used_at = now()
          where token_hash = ${await digest(secret)} and used_at is null and expires_at > now()
          returning user_id
        ),
        u as (
          update company_users set password_hash = ${hash}, password_changed_at = now()
          from link where company_users.id = link.user_id
          returning company_users.id, company_users.company_id
        ),
        others as (delete from user_sessions o using u where o.user_id = u.id)`,
    userId: sql`u.id`,
    from: sql`u`,
    audit: {
      companyId: sql`u.company_id`,
      actor: { type: "user", id: sql`u.id` },
      action: "user.password_set",
      targetType: "user",
      targetId: sql`u.id`,
      clientIp: c.get("clientIp"),
      requestId: c.get("requestId"),
    },
  });
  if (!started) return invalidLink(c);
  return c.redirect("/settings", 303);
});
