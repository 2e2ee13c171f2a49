import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newCompany } from "../../test/support/api";
import { oauthFlows } from "../../test/support/oauth";
import { signedIn } from "../../test/support/settings";
import { type RunningWorker, startWorker } from "../../test/support/worker";

/*
 * Connected apps over plain HTTP, against a Worker that caches tokens as production does (30 s): a
 * revoke must reach a token the isolate already trusts through the Redis marker, within a second.
 */

let cached: RunningWorker;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), "crm-connected-apps-"));
  cached = await startWorker({
    script: inject("workerScript"),
    bindings: { ...inject("workerBindings"), TOKEN_CACHE_TTL_MS: "30000" },
    logFile: path.join(tmp, "worker.log"),
  });
});

afterAll(async () => {
  await cached?.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

const origin = () => cached.url;
const { register, tokensFor } = oauthFlows(origin);
const me = (token: string) => fetch(`${origin()}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
const appRows = (html: string) => [...html.matchAll(/data-testid="app-row" data-grant-id="(\d+)"/g)].map((m) => Number(m[1]));

describe("/settings/connected-apps", () => {
  it("lists the company's grants (client, user, scope, created, last used); revoke answers 401 on the next request though the token was cached", async () => {
    const co = await newCompany();
    const { client: settings, email } = await signedIn(origin(), co.companyId);
    const { body: client } = await register({ client_name: "Shop assistant" });
    const tokens = await tokensFor(settings, client.client_id, { scope: "read" });
    // Cached by this isolate from here on.
    expect((await me(tokens.access_token)).status).toBe(200);
    expect((await me(tokens.access_token)).status).toBe(200);

    const page = await settings.get("/settings/connected-apps");
    expect(page.status).toBe(200);
    expect(page.res.headers.get("content-security-policy")).toContain("form-action 'self';");
    const [grantId] = appRows(page.html);
    expect(appRows(page.html)).toHaveLength(1);
    expect(page.html).toContain("Shop assistant");
    expect(page.html).toContain(email);
    expect(page.html).toMatch(/<td>read<\/td>/);

    const revoked = await settings.post(`/settings/connected-apps/${grantId}/revoke`, {}, { csrfFrom: page });
    expect(revoked.status).toBe(200);
    // The revoke answered: the next request is refused, though this isolate had cached the token.
    expect((await me(tokens.access_token)).status).toBe(401);
    expect(appRows(revoked.html)).toEqual([]);
  });

  it("removing the user who allowed an app ends its grant: the cached token answers 401 on the next request", async () => {
    const co = await newCompany();
    const { client: owner } = await signedIn(origin(), co.companyId);
    const { client: developer, user } = await signedIn(origin(), co.companyId, "developer");
    const { body: client } = await register({ client_name: "Developer's app" });
    const tokens = await tokensFor(developer, client.client_id, { scope: "read" });
    expect((await me(tokens.access_token)).status).toBe(200);
    expect((await me(tokens.access_token)).status).toBe(200);
    const users = await owner.get("/settings/users");
    const removed = await owner.post(`/settings/users/${user.id}/remove`, {}, { csrfFrom: users });
    expect(removed.status).toBe(200);
    expect((await me(tokens.access_token)).status).toBe(401);
    expect(appRows((await owner.get("/settings/connected-apps")).html)).toEqual([]);
  });

  it("company B's user never sees or revokes company A's grants: the same 404 as a missing one", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { client: settingsA } = await signedIn(origin(), a.companyId);
    const { client: settingsB } = await signedIn(origin(), b.companyId);
    const { body: client } = await register();
    const tokens = await tokensFor(settingsA, client.client_id);
    const [grantId] = appRows((await settingsA.get("/settings/connected-apps")).html);
    const pageB = await settingsB.get("/settings/connected-apps");
    expect(appRows(pageB.html)).toEqual([]);
    const foreign = await settingsB.post(`/settings/connected-apps/${grantId}/revoke`, {}, { csrfFrom: pageB });
    const missing = await settingsB.post("/settings/connected-apps/999999999/revoke", {}, { csrfFrom: pageB });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect((await me(tokens.access_token)).status).toBe(200);
    // Without the CSRF token nothing is revoked.
    expect((await settingsA.post(`/settings/connected-apps/${grantId}/revoke`, {}, { csrf: "0".repeat(64) })).status).toBe(403);
    expect((await me(tokens.access_token)).status).toBe(200);
  });
});
