import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newCompany, sql } from "../../test/support/api";
import { newSettingsUser, SettingsClient, signedIn, TEST_PASSWORD, testEmail } from "../../test/support/settings";
import { type RunningWorker, startWorker } from "../../test/support/worker";

/**
 * The settings area over HTTP against the Worker in workerd: sessions, CSRF, enumeration, throttling,
 * setup links, the users page's owner rule, two companies. A second Worker with short session times and
 * small sign-in limits runs the expiry and throttling tests.
 */
const origin = () => new URL(inject("apiUrl")).origin;

let short: RunningWorker;
const IDLE_SECONDS = 3;
const LIFETIME_SECONDS = 7;
beforeAll(async () => {
  short = await startWorker({
    script: inject("workerScript"),
    bindings: {
      ...inject("workerBindings"),
      SETTINGS_SESSION_IDLE_SECONDS: String(IDLE_SECONDS),
      SETTINGS_SESSION_LIFETIME_SECONDS: String(LIFETIME_SECONDS),
      SIGN_IN_LIMIT_PER_ADDRESS: "3",
      SIGN_IN_LIMIT_PER_CLIENT: "5",
      SIGN_IN_WINDOW_SECONDS: "600",
    },
    logFile: path.join(inject("tmpDir"), "settings-short.log"),
  });
});
afterAll(async () => {
  await short?.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const passwordHash = async (userId: number) =>
  (await sql<{ password_hash: string | null }>("select password_hash from company_users where id = $1", [userId]))[0]?.password_hash;
const audit = async (companyId: number) =>
  sql<{ action: string; actor_type: string; actor_id: string | null; target_id: string | null; details: any; client_ip: string | null }>(
    "select action, actor_type, actor_id, target_id, details, client_ip from audit_entries where company_id = $1 order by id",
    [companyId],
  );

describe("pages and headers", () => {
  it("every page, redirect and error sends the strict policy and the other security headers", async () => {
    const anon = new SettingsClient(origin());
    for (const page of [await anon.get("/settings/sign-in"), await anon.get("/settings/account"), await anon.get("/settings/setup/nope")]) {
      const h = page.res.headers;
      const csp = h.get("content-security-policy") ?? "";
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "frame-ancestors 'none'",
        "form-action 'self'",
        "base-uri 'none'",
      ])
        expect(csp).toContain(directive);
      expect(csp).not.toContain("unsafe-inline");
      expect(h.get("x-frame-options")).toBe("DENY");
      expect(h.get("referrer-policy")).toBe("no-referrer");
      expect(h.get("cache-control")).toBe("no-store");
      expect(h.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("a signed-out visitor is sent to the sign-in page, with the way back", async () => {
    const anon = new SettingsClient(origin());
    const res = await anon.get("/settings/users");
    expect(res.status).toBe(303);
    expect(res.location).toBe("/settings/sign-in?next=%2Fsettings%2Fusers");
  });

  it("pages have no inline script or style, and load only this origin's files", async () => {
    const anon = new SettingsClient(origin());
    const page = await anon.get("/settings/sign-in");
    expect(page.html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page.html).not.toMatch(/\sstyle=/);
    expect(page.html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const css = await fetch(`${origin()}/settings/assets/settings.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
  });
});

describe("setup links and the CLI", () => {
  it("user create prints the user and a setup link as its last line; the link works once", async () => {
    const company = await newCompany();
    const { execFile } = await import("node:child_process");
    const { promisify } = await import("node:util");
    const root = path.resolve(import.meta.dirname, "../..");
    const email = testEmail("cli");
    const { stdout } = await promisify(execFile)(
      path.join(root, "node_modules/.bin/tsx"),
      [
        "tools/cli/admin.ts",
        "user",
        "create",
        "--company",
        String(company.companyId),
        "--email",
        email,
        "--role",
        "owner",
        "--base-url",
        origin(),
      ],
      { cwd: root, env: { ...process.env, DATABASE_URL: inject("databaseUrl") } },
    );
    const out = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(out.user).toMatchObject({ company_id: company.companyId, email, role: "owner" });
    expect(out.setup_url).toMatch(new RegExp(`^${origin()}/settings/setup/[0-9a-f]{64}$`));
    expect(Date.parse(out.expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    // Only the link's digest is stored.
    const secret = out.setup_url.split("/").at(-1);
    expect((await sql("select 1 from user_setup_links where token_hash = $1", [secret])).length).toBe(0);

    const first = new SettingsClient(origin());
    const done = await first.setUp(out.setup_url, TEST_PASSWORD);
    expect(done.status).toBe(303);
    expect(done.location).toBe("/settings");
    expect((await first.get("/settings/account")).status).toBe(200);

    const again = await new SettingsClient(origin()).get(new URL(out.setup_url).pathname);
    expect(again.status).toBe(404);
    expect(again.testId("error-message")).toMatch(/not valid/);
  });

  it("a used, an expired and an unknown link get the same page; posting to one changes nothing", async () => {
    const company = await newCompany();
    const made = await newSettingsUser(origin(), company.companyId, "developer");
    await sql("update user_setup_links set expires_at = now() - interval '1 second' where user_id = $1", [made.user.id]);
    const client = new SettingsClient(origin());
    const expired = await client.get(new URL(made.setup_url).pathname);
    const unknown = await client.get(`/settings/setup/${"0".repeat(64)}`);
    const malformed = await client.get("/settings/setup/abc");
    expect([expired.status, unknown.status, malformed.status]).toEqual([404, 404, 404]);
    expect(expired.testId("error-message")).toBe(unknown.testId("error-message"));
    expect(malformed.testId("error-message")).toBe(unknown.testId("error-message"));

    const signIn = await client.get("/settings/sign-in");
    const post = await client.post(
      new URL(made.setup_url).pathname,
      { password: TEST_PASSWORD, password_confirmation: TEST_PASSWORD },
      { csrfFrom: signIn },
    );
    expect(post.status).toBe(404);
    expect(await passwordHash(made.user.id)).toBeNull();
  });

  it("refuses a password shorter than 12 or longer than 128 characters, or not confirmed", async () => {
    const company = await newCompany();
    const made = await newSettingsUser(origin(), company.companyId);
    const client = new SettingsClient(origin());
    const p = new URL(made.setup_url).pathname;
    const form = await client.get(p);
    for (const [password, confirmation] of [
      ["short pass1", "short pass1"],
      ["x".repeat(129), "x".repeat(129)],
      [TEST_PASSWORD, `${TEST_PASSWORD}!`],
    ]) {
      const res = await client.post(p, { password, password_confirmation: confirmation }, { csrfFrom: form });
      expect(res.status).toBe(400);
      expect(res.testId("notice-error")).toBeTruthy();
    }
    expect(await passwordHash(made.user.id)).toBeNull();
    // The link still works after the refusals.
    expect(
      (await client.post(p, { password: "ünïcödé pässwörd 🙂", password_confirmation: "ünïcödé pässwörd 🙂" }, { csrfFrom: form })).status,
    ).toBe(303);
    expect(await passwordHash(made.user.id)).toMatch(/^scrypt\$14\$8\$5\$/);
  });
});

describe("sign-in and sessions", () => {
  it("the session cookie is HttpOnly, SameSite=Lax, host-only; a new session id at every sign-in", async () => {
    const company = await newCompany();
    const { email } = await signedIn(origin(), company.companyId);
    const client = new SettingsClient(origin());
    const form = await client.get("/settings/sign-in");
    const visitor = form.res.headers.get("set-cookie")!;
    expect(visitor).toMatch(/^crm_settings_visitor=[0-9a-f]{64};/);
    const res = await client.post(
      "/settings/sign-in",
      { email: email.toUpperCase(), password: TEST_PASSWORD, next: "/settings/users" },
      { csrfFrom: form },
    );
    expect(res.status).toBe(303);
    expect(res.location).toBe("/settings/users");
    const cookies = (res.res.headers as unknown as { getSetCookie(): string[] }).getSetCookie();
    const session = cookies.find((c) => c.startsWith("crm_settings_session="))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).toMatch(/Path=\//);
    expect(session).not.toMatch(/Domain=/i);
    // On localhost over http: no Secure (browsers would drop it), so no __Host- prefix either.
    expect(session).not.toMatch(/Secure/);
    // The visitor cookie (the sign-in form's CSRF secret) is dropped.
    expect(cookies.some((c) => /^crm_settings_visitor=;/.test(c))).toBe(true);
    const first = client.cookies.get("crm_settings_session");

    const second = await client.signIn(email, TEST_PASSWORD);
    expect(second.status).toBe(303);
    expect(client.cookies.get("crm_settings_session")).not.toBe(first);
  });

  it("served on another host, the cookies are Secure with the __Host- prefix", async () => {
    // Miniflare's dispatchFetch keeps the URL as given (over the socket it would be 127.0.0.1).
    const res = await short.mf.dispatchFetch("https://settings.example.com/settings/sign-in");
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(res.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
    expect(cookie).toMatch(/^__Host-crm_settings_visitor=[0-9a-f]{64};/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/Path=\//);
  });

  it("an unknown address and a wrong password get the same status and page", async () => {
    const company = await newCompany();
    const { email, user } = await signedIn(origin(), company.companyId);
    const client = new SettingsClient(origin());
    const form = await client.get("/settings/sign-in");
    const unknownEmail = testEmail("nobody");
    const wrong = await client.post("/settings/sign-in", { email, password: "not the password at all" }, { csrfFrom: form });
    const unknown = await client.post(
      "/settings/sign-in",
      { email: unknownEmail, password: "not the password at all" },
      { csrfFrom: form },
    );
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.html.replace(unknownEmail, "EMAIL")).toBe(wrong.html.replace(email, "EMAIL"));
    expect(client.cookies.has("crm_settings_session")).toBe(false);
    // The known user's company records the failed attempt (written after the answer).
    await expect.poll(async () => (await audit(company.companyId)).filter((a) => a.action === "user.sign_in_failed").length).toBe(1);
    const failed = (await audit(company.companyId)).find((a) => a.action === "user.sign_in_failed")!;
    expect(failed).toMatchObject({ target_id: String(user.id), client_ip: client.ip });
  });

  it("sign-out ends the session on the server: the old cookie no longer works", async () => {
    const company = await newCompany();
    const { client } = await signedIn(origin(), company.companyId);
    const stolen = client.cookieHeader();
    const account = await client.get("/settings/account");
    const out = await client.post("/settings/sign-out", {}, { csrfFrom: account });
    expect(out.status).toBe(303);
    expect(out.location).toBe("/settings/sign-in?signed_out");
    const replay = await fetch(`${origin()}/settings/account`, { headers: { cookie: stolen }, redirect: "manual" });
    expect(replay.status).toBe(303);
    expect(replay.headers.get("location")).toMatch(/^\/settings\/sign-in/);
  });

  it("sign out everywhere ends every session of the user, and only theirs", async () => {
    const company = await newCompany();
    const { client, email } = await signedIn(origin(), company.companyId);
    const other = new SettingsClient(origin());
    expect((await other.signIn(email, TEST_PASSWORD)).status).toBe(303);
    const colleague = await signedIn(origin(), company.companyId, "developer");
    const res = await client.post("/settings/account/sign-out-everywhere", {}, { csrfFrom: "/settings/account" });
    expect(res.status).toBe(303);
    expect((await other.get("/settings/account")).status).toBe(303);
    expect((await client.get("/settings/account")).status).toBe(303);
    expect((await colleague.client.get("/settings/account")).status).toBe(200);
  });

  it("a password change needs the current password, and ends the user's other sessions but not this one", async () => {
    const company = await newCompany();
    const { client, email, user } = await signedIn(origin(), company.companyId);
    const other = new SettingsClient(origin());
    expect((await other.signIn(email, TEST_PASSWORD)).status).toBe(303);
    const before = await passwordHash(user.id);
    const wrong = await client.post(
      "/settings/account/password",
      { current_password: "not my password!", password: "a brand new passphrase", password_confirmation: "a brand new passphrase" },
      { csrfFrom: "/settings/account" },
    );
    expect(wrong.status).toBe(400);
    expect(await passwordHash(user.id)).toBe(before);
    const ok = await client.post(
      "/settings/account/password",
      { current_password: TEST_PASSWORD, password: "a brand new passphrase", password_confirmation: "a brand new passphrase" },
      { csrfFrom: "/settings/account" },
    );
    expect(ok.status).toBe(303);
    expect((await client.get("/settings/account")).status).toBe(200);
    expect((await other.get("/settings/account")).status).toBe(303);
    expect((await new SettingsClient(origin()).signIn(email, TEST_PASSWORD)).status).toBe(401);
    expect((await new SettingsClient(origin()).signIn(email, "a brand new passphrase")).status).toBe(303);
    const actions = (await audit(company.companyId)).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["user.invited", "user.password_set", "user.signed_in", "user.password_changed"]));
  });

  it("a session ends when idle past the idle timeout", async () => {
    const company = await newCompany();
    const { client } = await signedIn(short.url, company.companyId);
    expect((await client.get("/settings/account")).status).toBe(200);
    await sleep((IDLE_SECONDS + 1) * 1000);
    const res = await client.get("/settings/account");
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/^\/settings\/sign-in/);
  });

  it("a session in use ends at its absolute lifetime", async () => {
    const company = await newCompany();
    const { client } = await signedIn(short.url, company.companyId);
    const started = Date.now();
    // Used more often than the idle timeout, so only the lifetime can end it.
    let status = 200;
    while (Date.now() - started < (LIFETIME_SECONDS + 2) * 1000 && status === 200) {
      status = (await client.get("/settings/account")).status;
      if (status === 200) await sleep(1000);
    }
    expect(status).toBe(303);
    expect(Date.now() - started).toBeGreaterThanOrEqual((LIFETIME_SECONDS - 1) * 1000);
  });
});

describe("CSRF", () => {
  it("a state-changing form without or with a wrong _csrf is refused with 403, and nothing changes", async () => {
    const company = await newCompany();
    const { client, user } = await signedIn(origin(), company.companyId);
    const before = await passwordHash(user.id);
    const change = {
      current_password: TEST_PASSWORD,
      password: "another good passphrase",
      password_confirmation: "another good passphrase",
    };
    for (const csrf of [false, "0".repeat(64), ""] as const) {
      const res = await client.post("/settings/account/password", change, { csrf });
      expect(res.status).toBe(403);
      expect(res.testId("error-message")).toMatch(/nothing was changed/);
      const invite = await client.post("/settings/users", { email: testEmail("csrf"), role: "developer" }, { csrf });
      expect(invite.status).toBe(403);
      expect((await client.post("/settings/sign-out", {}, { csrf })).status).toBe(403);
    }
    expect(await passwordHash(user.id)).toBe(before);
    expect((await sql("select count(*)::int as n from company_users where company_id = $1", [company.companyId]))[0].n).toBe(1);
    expect((await client.get("/settings/account")).status).toBe(200);
    // Another session's token is wrong for this one.
    const other = await signedIn(origin(), company.companyId);
    const foreign = (await other.client.get("/settings/account")).csrf();
    expect((await client.post("/settings/account/password", change, { csrf: foreign })).status).toBe(403);
    expect(await passwordHash(user.id)).toBe(before);
  });

  it("the sign-in form needs the visitor's own token", async () => {
    const company = await newCompany();
    const { email } = await signedIn(origin(), company.companyId);
    const client = new SettingsClient(origin());
    await client.get("/settings/sign-in");
    expect((await client.post("/settings/sign-in", { email, password: TEST_PASSWORD }, { csrf: false })).status).toBe(403);
    const elsewhere = await new SettingsClient(origin()).get("/settings/sign-in");
    expect((await client.post("/settings/sign-in", { email, password: TEST_PASSWORD }, { csrf: elsewhere.csrf() })).status).toBe(403);
    expect(client.cookies.has("crm_settings_session")).toBe(false);
  });
});

describe("throttling", () => {
  it("attempts per address past the limit get 429 with Retry-After, even with the right password", async () => {
    const company = await newCompany();
    const { email } = await signedIn(short.url, company.companyId);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await new SettingsClient(short.url).signIn(email, "wrong password, attempt")).status);
    expect(statuses).toEqual([401, 401, 401]);
    const refused = await new SettingsClient(short.url).signIn(email, TEST_PASSWORD);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(600);
  });

  it("attempts per client past the limit get 429, whatever the address", async () => {
    const client = new SettingsClient(short.url);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await client.signIn(testEmail("spray"), "some password here")).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});

describe("users page", () => {
  it("an owner invites a user (the page shows the link), changes their role and removes them, which ends their sessions", async () => {
    const company = await newCompany();
    const { client, user: owner } = await signedIn(origin(), company.companyId);
    const email = testEmail("invitee");
    const invited = await client.post("/settings/users", { email, role: "developer" }, { csrfFrom: "/settings/users" });
    expect(invited.status).toBe(201);
    const link = invited.testId("setup-url")!;
    expect(link).toMatch(/\/settings\/setup\/[0-9a-f]{64}$/);
    const invitee = new SettingsClient(origin());
    expect((await invitee.setUp(link, TEST_PASSWORD)).status).toBe(303);
    // A developer does not see the users page.
    expect((await invitee.get("/settings/users")).status).toBe(403);
    expect((await invitee.get("/settings/account")).html).not.toContain('href="/settings/users"');

    const [row] = await sql<{ id: number }>("select id from company_users where lower(email) = lower($1)", [email]);
    expect((await client.post(`/settings/users/${row.id}/role`, { role: "owner" }, { csrfFrom: "/settings/users" })).status).toBe(200);
    expect((await invitee.get("/settings/users")).status).toBe(200);
    const taken = await client.post("/settings/users", { email: email.toUpperCase(), role: "developer" }, { csrfFrom: "/settings/users" });
    expect(taken.status).toBe(409);

    const removed = await client.post(`/settings/users/${row.id}/remove`, {}, { csrfFrom: "/settings/users" });
    expect(removed.status).toBe(200);
    expect((await invitee.get("/settings/account")).status).toBe(303);
    expect((await sql("select 1 from company_users where id = $1", [row.id])).length).toBe(0);

    const entries = (await audit(company.companyId)).filter((a) => a.actor_id === String(owner.id));
    expect(entries.map((a) => a.action)).toEqual(expect.arrayContaining(["user.invited", "user.role_changed", "user.removed"]));
    expect(entries.find((a) => a.action === "user.role_changed")!.details).toMatchObject({ from: "developer", to: "owner" });
  });

  it("the last owner can be neither demoted nor removed", async () => {
    const company = await newCompany();
    const { client, user } = await signedIn(origin(), company.companyId);
    const demote = await client.post(`/settings/users/${user.id}/role`, { role: "developer" }, { csrfFrom: "/settings/users" });
    expect(demote.status).toBe(409);
    const remove = await client.post(`/settings/users/${user.id}/remove`, {}, { csrfFrom: "/settings/users" });
    expect(remove.status).toBe(409);
    expect((await sql("select role from company_users where id = $1", [user.id]))[0].role).toBe("owner");
  });

  it("two owners demoting each other at the same time leave one owner", async () => {
    const company = await newCompany();
    const a = await signedIn(origin(), company.companyId);
    const b = await signedIn(origin(), company.companyId);
    const [formA, formB] = await Promise.all([a.client.get("/settings/users"), b.client.get("/settings/users")]);
    const results = await Promise.all([
      a.client.post(`/settings/users/${b.user.id}/role`, { role: "developer" }, { csrfFrom: formA }),
      b.client.post(`/settings/users/${a.user.id}/remove`, {}, { csrfFrom: formB }),
    ]);
    // One wins; the other is refused (409), or finds its own session or role gone (303, 403).
    expect(results.filter((r) => r.status === 200).length).toBe(1);
    const owners = await sql("select id from company_users where company_id = $1 and role = 'owner'", [company.companyId]);
    expect(owners.length).toBe(1);
  });

  it("another company's user ids answer like missing ones, and change nothing", async () => {
    const [companyA, companyB] = await Promise.all([newCompany(), newCompany()]);
    const a = await signedIn(origin(), companyA.companyId);
    const b = await signedIn(origin(), companyB.companyId);
    const list = await b.client.get("/settings/users");
    expect(list.html).not.toContain(a.email);
    expect(list.html).toContain(b.email);
    const missing = 2_000_000_000;
    for (const action of ["role", "remove"]) {
      const foreign = await b.client.post(`/settings/users/${a.user.id}/${action}`, { role: "developer" }, { csrfFrom: list });
      const absent = await b.client.post(`/settings/users/${missing}/${action}`, { role: "developer" }, { csrfFrom: list });
      expect(foreign.status).toBe(404);
      expect(absent.status).toBe(404);
      expect(foreign.html).toBe(absent.html);
    }
    expect((await sql("select role from company_users where id = $1", [a.user.id]))[0].role).toBe("owner");
    expect((await a.client.get("/settings/account")).status).toBe(200);
    expect((await audit(companyA.companyId)).some((e) => e.actor_id === String(b.user.id))).toBe(false);
  });
});
