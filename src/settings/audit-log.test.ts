import { describe, expect, inject, it } from "vitest";
import { db, newCompany, sql } from "../../test/support/api";
import { signedIn } from "../../test/support/settings";
import { LOCAL_RECEIVER } from "../../test/support/webhooks";
import { AUDIT_RETENTION_DAYS, purgeOldAuditEntries } from "../http/audit";

/** `/settings/audit-log` over HTTP against the Worker: the company's entries only, newest first, by actor, paged, 90 days. */
const origin = () => new URL(inject("apiUrl")).origin;

const entryIds = (html: string) => [...html.matchAll(/data-entry-id="(\d+)"/g)].map((m) => Number(m[1]));
const entriesOf = async (companyId: number, where = "true") =>
  (
    await sql<{ id: string }>(
      `select id from audit_entries where company_id = $1 and ${where} and created_at > now() - interval '${AUDIT_RETENTION_DAYS} days' order by id desc`,
      [companyId],
    )
  ).map((r) => Number(r.id));

describe("/settings/audit-log", () => {
  it("lists the company's settings actions newest first with who and which request; another company's never show, whatever the filter", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { client, user } = await signedIn(origin(), a.companyId, "developer");
    const other = await signedIn(origin(), b.companyId, "owner");
    const created = await client.post(
      "/settings/tokens",
      { name: "Audit me", scope: "read", expires_in_days: "7" },
      { csrfFrom: "/settings/tokens" },
    );
    expect(created.status).toBe(201);
    const requestId = created.res.headers.get("x-request-id")!;
    const added = await client.post(
      "/settings/webhooks",
      { url: LOCAL_RECEIVER, events: "*", description: "" },
      { csrfFrom: "/settings/webhooks" },
    );
    expect(added.status).toBe(201);
    await other.client.post("/settings/tokens", { name: "B's", scope: "read", expires_in_days: "7" }, { csrfFrom: "/settings/tokens" });

    const page = await client.get("/settings/audit-log");
    expect(page.status).toBe(200);
    expect(page.res.headers.get("content-security-policy")).toContain("default-src 'self'");
    // Exactly the company's entries, newest first: the sign-in, the token, the endpoint, and the CLI's.
    expect(entryIds(page.html)).toEqual(await entriesOf(a.companyId));
    expect(page.html).toContain("webhook_endpoint.created");
    expect(page.html).toContain(requestId);
    expect(page.html).toContain(user.email);
    expect(page.html).not.toContain("B&#39;s");
    const bIds = await entriesOf(b.companyId);
    expect(entryIds(page.html).some((id) => bIds.includes(id))).toBe(false);
    // The filter is a GET form: no CSRF token to change nothing.
    expect(page.testId("audit-filter")).toBeDefined();

    // By actor: the user's own actions; the CLI's (`system`: the company's first token, the user's invitation).
    const mine = await client.get(`/settings/audit-log?actor=user:${user.id}`);
    expect(entryIds(mine.html)).toEqual(await entriesOf(a.companyId, `actor_type = 'user' and actor_id = '${user.id}'`));
    expect(entryIds(mine.html).length).toBeGreaterThanOrEqual(3);
    const system = await client.get("/settings/audit-log?actor=system");
    expect(entryIds(system.html)).toEqual(await entriesOf(a.companyId, "actor_type = 'system'"));
    expect(entryIds(system.html).length).toBeGreaterThan(0);
    // Company B filtering by A's user sees nothing of A's.
    const foreign = await other.client.get(`/settings/audit-log?actor=user:${user.id}`);
    expect(foreign.status).toBe(200);
    expect(entryIds(foreign.html)).toEqual([]);
    expect(entryIds((await other.client.get("/settings/audit-log")).html)).toEqual(bIds);
    // A filter the page does not offer is refused, not ignored.
    expect((await client.get("/settings/audit-log?actor=user:abc")).status).toBe(400);
    expect((await client.get("/settings/audit-log?before=x")).status).toBe(400);
  });

  it("pages 50 at a time with an older-entries link; keeps 90 days, and the cron's purge drops older entries", async () => {
    const co = await newCompany();
    const { client } = await signedIn(origin(), co.companyId, "owner");
    await sql(
      `insert into audit_entries (company_id, actor_type, actor_id, action, created_at)
       select $1, 'system', null, 'test.filler', now() - make_interval(secs => g) from generate_series(1, 60) g`,
      [co.companyId],
    );
    const [old] = await sql<{ id: string }>(
      "insert into audit_entries (company_id, actor_type, action, created_at) values ($1, 'system', 'test.ancient', now() - interval '91 days') returning id",
      [co.companyId],
    );
    const all = await entriesOf(co.companyId);
    const first = await client.get("/settings/audit-log");
    expect(entryIds(first.html)).toEqual(all.slice(0, 50));
    const link = /data-testid="older-entries"/.test(first.html) && /href="([^"]+)" data-testid="older-entries"/.exec(first.html)?.[1];
    expect(link).toBeTruthy();
    const second = await client.get(String(link).replaceAll("&amp;", "&"));
    expect(entryIds(second.html)).toEqual(all.slice(50));
    expect(second.html).not.toContain("older-entries");
    expect(first.html + second.html).not.toContain("test.ancient");
    await purgeOldAuditEntries(db());
    expect(await sql("select 1 from audit_entries where id = $1", [old.id])).toEqual([]);
    expect((await entriesOf(co.companyId)).length).toBe(all.length);
  });
});
