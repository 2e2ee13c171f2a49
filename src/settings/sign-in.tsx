import { sql } from "drizzle-orm";
import { type Context, Hono } from "hono";
import { rowsOf } from "../platform/sql-kit";
import { createAttemptLimiter } from "../ratelimit/attempts";
import { recordAudit } from "./audit";
import type { SettingsEnv } from "./context";
import { errorPage } from "./errors";
import { checkCsrf, field } from "./guards";
import { CsrfInput, Layout, Notice } from "./layout";
import { verifyPassword } from "./passwords";
import { digest } from "./secrets";
import { afterSignIn, endSessions, requireUser, startSession, visitorCsrf, withVisitorCsrf } from "./session";

/**
 * `/settings/sign-in` (fields `email`, `password`) and `/settings/sign-out`. An unknown address and a
 * wrong password get the same page and status after the same work (a password is checked against a
 * dummy hash when there is no user), and attempts are limited per address and per client.
 */
export const signInRoutes = new Hono<SettingsEnv>();

const FAILED = "The e-mail address or the password is not right.";

function SignInForm({
  c,
  email,
  next,
  error,
  notice,
}: {
  c: Context<SettingsEnv>;
  email?: string;
  next?: string;
  error?: string;
  notice?: string;
}) {
  return (
    <Layout title="Sign in">
      {error && <Notice kind="error">{error}</Notice>}
      {notice && <Notice kind="ok">{notice}</Notice>}
      <form method="post" action="/settings/sign-in" class="stack" data-testid="sign-in-form">
        <CsrfInput token={c.get("csrfToken")} />
        {next && <input type="hidden" name="next" value={next} />}
        <label for="email">E-mail address</label>
        <input id="email" name="email" type="email" autocomplete="username" required maxlength={254} value={email ?? ""} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength={1024} />
        <button type="submit">Sign in</button>
      </form>
      <p class="hint">No account yet? An owner of your company invites you from the Users page, or your operator makes one.</p>
    </Layout>
  );
}

signInRoutes.get("/", async (c) => {
  await visitorCsrf(c);
  const notice = c.req.query("signed_out") !== undefined ? "You are signed out." : undefined;
  return c.html(<SignInForm c={c} next={c.req.query("next")} notice={notice} />);
});

signInRoutes.post("/", withVisitorCsrf, checkCsrf, async (c) => {
  const config = c.get("config");
  const email = (await field(c, "email")).trim();
  const password = await field(c, "password");
  const next = (await field(c, "next")) || undefined;
  const window = config.SIGN_IN_WINDOW_SECONDS;
  // Both counted, at once: per address (guessing one account's password) and per client (trying many accounts).
  const [byAddress, byClient] = await Promise.all([
    createAttemptLimiter(c.env, { name: "sign-in-address", limit: config.SIGN_IN_LIMIT_PER_ADDRESS, windowSeconds: window }).attempt(
      await digest(email.toLowerCase()),
    ),
    createAttemptLimiter(c.env, { name: "sign-in-client", limit: config.SIGN_IN_LIMIT_PER_CLIENT, windowSeconds: window }).attempt(
      c.get("clientIp"),
    ),
  ]);
  if (!byAddress.allowed || !byClient.allowed) {
    const wait = Math.max(byAddress.allowed ? 0 : byAddress.retryAfterSeconds, byClient.allowed ? 0 : byClient.retryAfterSeconds);
    c.header("Retry-After", String(wait));
    return errorPage(c, 429, "Too many attempts", `Too many sign-in attempts. Try again in ${Math.ceil(wait / 60)} minute(s).`);
  }
  const [user] = email
    ? rowsOf<{ id: number; company_id: number; password_hash: string | null }>(
        await c.get("db").execute(sql`select id, company_id, password_hash from company_users where lower(email) = lower(${email})`),
      )
    : [];
  const ok = (await verifyPassword(password, user?.password_hash)) && user !== undefined;
  const audit = {
    actor: { type: "user" as const, id: user?.id ?? null },
    targetType: "user",
    targetId: user?.id,
    clientIp: c.get("clientIp"),
    requestId: c.get("requestId"),
  };
  if (ok && user) {
    await startSession(c, { userId: user.id, audit: { ...audit, companyId: user.company_id, action: "user.signed_in" } });
    return c.redirect(afterSignIn(next), 303);
  }
  // After the answer (waitUntil): the answer for a known address must not wait for a write an unknown one skips.
  if (user) c.get("defer")(recordAudit(c.get("db"), { ...audit, companyId: user.company_id, action: "user.sign_in_failed" }));
  return c.html(<SignInForm c={c} email={email} next={next} error={FAILED} />, 401);
});

export const signOutRoutes = new Hono<SettingsEnv>();

signOutRoutes.post("/", requireUser, checkCsrf, async (c) => {
  await endSessions(c, "this");
  return c.redirect("/settings/sign-in?signed_out", 303);
});
