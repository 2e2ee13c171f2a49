import { describe, expect, it } from "vitest";
import { apiUrl, call, expectError, newCompany, sql } from "../../test/support/api";
import { type Page, signedIn } from "../../test/support/settings";

/* The tokens page over plain HTTP (no JavaScript), against the Worker in workerd. */

const origin = () => apiUrl().replace(/\/api\/v1$/, "");

const rowIds = (page: Page) => [...page.html.matchAll(/data-testid="token-row" data-token-id="(\d+)"/g)].map((m) => Number(m[1]));

async function createOnPage(client: Awaited<ReturnType<typeof signedIn>>["client"], fields: Record<string, string>) {
  return client.post("/settings/tokens", fields, { csrfFrom: "/settings/tokens" });
}

describe("/settings/tokens", () => {
  it("creates a token shown once (no-store, not in a URL); the list shows its last four only; scope read refuses writes", async () => {
    const co = await newCompany();
    const { client, user } = await signedIn(origin(), co.companyId, "developer");
    const created = await createOnPage(client, { name: "Integrator", scope: "read", expires_in_days: "" });
    expect(created.status).toBe(201);
    expect(created.location).toBeNull();
    expect(created.res.headers.get("cache-control")).toBe("no-store");
    const token = created.testId("new-token")!;
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(created.testId("curl-example")).toContain(`Authorization: Bearer ${token}`);
    expect((await call("GET", "/clients", { token })).status).toBe(200);
    expectError(await call("POST", "/clients", { token, body: { company_name: "No" } }), 403, "forbidden");

    const list = await client.get("/settings/tokens");
    expect(list.status).toBe(200);
    expect(list.html).not.toContain(token);
    expect(list.testId("new-token")).toBeUndefined();
    expect(list.html).toContain(`…${token.slice(-4)}`);
    const [row] = await sql<{ id: number; created_by_user_id: number; expires_at: Date | null }>(
      "select id, created_by_user_id, expires_at from api_tokens where company_id = $1 and name = 'Integrator'",
      [co.companyId],
    );
    expect(row).toMatchObject({ created_by_user_id: user.id, expires_at: null });
    // Newest first; the CLI's token (newCompany's) is listed too.
    expect(rowIds(list)).toEqual([row.id, co.tokenId]);
    const audit = await sql(
      "select actor_type, actor_id, action, target_id, client_ip from audit_entries where company_id = $1 and action like 'token.%'",
      [co.companyId],
    );
    expect(audit).toContainEqual({
      actor_type: "user",
      actor_id: String(user.id),
      action: "token.created",
      target_id: String(row.id),
      client_ip: client.ip,
    });
  });

  it("re-renders the form with messages on bad input, creating nothing", async () => {
    const co = await newCompany();
    const { client } = await signedIn(origin(), co.companyId);
    const bad = await createOnPage(client, { name: " ", scope: "admin", expires_in_days: "12" });
    expect(bad.status).toBe(400);
    expect(bad.testId("error-name")).toBeTruthy();
    expect(bad.testId("error-scope")).toBeTruthy();
    expect(bad.testId("error-expires_in_days")).toBeTruthy();
    expect(bad.testId("new-token")).toBeUndefined();
    expect(await sql("select id from api_tokens where company_id = $1", [co.companyId])).toHaveLength(1);
  });

  it("refuses a POST without or with a wrong _csrf, changing nothing", async () => {
    const co = await newCompany();
    const { client } = await signedIn(origin(), co.companyId);
    for (const csrf of [false, "0".repeat(43)] as const) {
      const res = await client.post("/settings/tokens", { name: "CSRF", scope: "write", expires_in_days: "7" }, { csrf });
      expect(res.status).toBe(403);
      const revoke = await client.post(`/settings/tokens/${co.tokenId}/revoke`, {}, { csrf });
      expect(revoke.status).toBe(403);
    }
    expect(await sql("select id from api_tokens where company_id = $1 and revoked_at is null", [co.companyId])).toHaveLength(1);
    expect((await co.get("/clients")).status).toBe(200);
  });

  it("rolls (the new token shown once, the old one refused at once with no overlap) and revokes: 401 on the next request", async () => {
    const co = await newCompany();
    const { client, user } = await signedIn(origin(), co.companyId);
    const created = await createOnPage(client, { name: "Rolling", scope: "write", expires_in_days: "30" });
    const old = created.testId("new-token")!;
    const [{ id }] = await sql<{ id: number }>("select id from api_tokens where company_id = $1 and name = 'Rolling'", [co.companyId]);
    expect((await call("GET", "/clients", { token: old })).status).toBe(200);

    const rolled = await client.post(`/settings/tokens/${id}/roll`, { overlap: "none" }, { csrfFrom: "/settings/tokens" });
    expect(rolled.status).toBe(201);
    const fresh = rolled.testId("new-token")!;
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh).not.toBe(old);
    expectError(await call("GET", "/clients", { token: old }), 401, "unauthenticated");
    expect((await call("POST", "/clients", { token: fresh, body: { company_name: "Rolled" } })).status).toBe(200);

    const [{ id: freshId }] = await sql<{ id: number }>(
      "select id from api_tokens where company_id = $1 and name = 'Rolling' and revoked_at is null",
      [co.companyId],
    );
    const revoked = await client.post(`/settings/tokens/${freshId}/revoke`, {}, { csrfFrom: "/settings/tokens" });
    expect(revoked.status).toBe(200);
    expect(revoked.html).not.toContain(fresh);
    expectError(await call("GET", "/clients", { token: fresh }), 401, "unauthenticated");
    const actions = await sql<{ action: string; actor_id: string }>(
      "select action, actor_id from audit_entries where company_id = $1 and action like 'token.%' order by id",
      [co.companyId],
    );
    expect(actions.filter((a) => a.actor_id === String(user.id)).map((a) => a.action)).toEqual([
      "token.created",
      "token.rolled",
      "token.revoked",
    ]);
  });

  it("another company's token ids answer like missing ones, and change nothing", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { client } = await signedIn(origin(), b.companyId);
    const page = await client.get("/settings/tokens");
    expect(rowIds(page)).toEqual([b.tokenId]);
    const missing = await client.post("/settings/tokens/2147483000/revoke", {}, { csrfFrom: page });
    for (const action of ["revoke", "roll"]) {
      const foreign = await client.post(`/settings/tokens/${a.tokenId}/${action}`, { overlap: "none" }, { csrfFrom: page });
      expect(foreign.status).toBe(404);
      expect(foreign.html).toBe(missing.html);
    }
    expect((await a.get("/clients")).status).toBe(200);
  });
});
