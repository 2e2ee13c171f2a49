import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { call, db, newCompany, waitFor } from "../../test/support/api";
import { signedIn } from "../../test/support/settings";
import { createToken } from "../../tools/ops/commands";

/** `/settings/request-logs` over plain HTTP: the whole company's entries, filters, links, tenancy; actions logged. */
const origin = () => new URL(inject("apiUrl")).origin;
const requestIds = (html: string) => [...html.matchAll(/href="\/settings\/request-logs\/([^"]+)"/g)].map((m) => decodeURIComponent(m[1]));

describe("/settings/request-logs", () => {
  it("lists every token's requests of the company, filters them, links each request id to its entry; another company's are missing", async () => {
    const co = await newCompany();
    const other = await newCompany();
    const { token: second } = await createToken(db(), { companyId: co.companyId, scope: "read" });
    const [mine, theirs, failed, foreign] = ["mine", "theirs", "failed", "foreign"].map((w) => `rl-settings-${w}-${randomUUID()}`);
    await co.get("/clients", { headers: { "x-request-id": mine } });
    await call("GET", "/orders", { token: second, headers: { "x-request-id": theirs } });
    await co.get("/orders/999999996", { headers: { "x-request-id": failed } });
    await other.get("/clients", { headers: { "x-request-id": foreign } });
    const { client } = await signedIn(origin(), co.companyId, "developer");
    const page = await waitFor(
      "the three entries on the page",
      () => client.get("/settings/request-logs"),
      (p) => [mine, theirs, failed].every((id) => requestIds(p.html).includes(id)),
    );
    expect(page.status).toBe(200);
    expect(page.res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(requestIds(page.html)).not.toContain(foreign);
    expect(requestIds((await client.get("/settings/request-logs?status=4xx")).html)).toEqual([failed]);
    expect(requestIds((await client.get(`/settings/request-logs?token_id=${co.tokenId}&method=GET`)).html)).toEqual([failed, mine]);
    expect(requestIds((await client.get("/settings/request-logs?operation=listOrders")).html)).toEqual([theirs]);
    const bad = await client.get("/settings/request-logs?status=4x");
    expect(bad.status).toBe(200);
    expect(bad.testId("filter-error")).toContain("status");

    const entry = await client.get(`/settings/request-logs/${failed}`);
    expect(entry.status).toBe(200);
    expect(entry.html).toContain("getOrder");
    expect(entry.testId("status")).toBe("404");
    expect((await client.get(`/settings/request-logs/${foreign}`)).status).toBe(404);
  });

  it("a signed-in user's action (revoking a token) leaves an entry naming the user", async () => {
    const co = await newCompany();
    const { client, user } = await signedIn(origin(), co.companyId, "owner");
    const tokens = await client.get("/settings/tokens");
    const revoked = await client.post(`/settings/tokens/${co.tokenId}/revoke`, {}, { csrfFrom: tokens });
    expect(revoked.status).toBeLessThan(400);
    const page = await waitFor(
      "the action's entry",
      () => client.get("/settings/request-logs?operation=settings.tokens.revoke"),
      (p) => requestIds(p.html).length === 1,
    );
    expect(page.html).toContain(`user #${user.id}`);
    expect(page.html).toContain(`/settings/tokens/${co.tokenId}/revoke`);
  });
});
