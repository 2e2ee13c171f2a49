import { describe, expect, it } from "vitest";
import { call, db, expectError, newCompany, sql } from "../../../test/support/api";
import { createToken } from "../../../tools/ops/commands";

describe("GET /me", () => {
  it("answers the token's company, the token (id, scope, creation time; never its value) and the rate limit", async () => {
    const a = await newCompany({ name: `Northside ${Date.now()}` });
    const res = await a.get("/me");
    expect(res.status).toBe(200);
    const [token] = await sql<{ created_at: Date }>("select created_at from api_tokens where id = $1", [a.tokenId]);
    const [company] = await sql<{ name: string }>("select name from companies where id = $1", [a.companyId]);
    expect(res.body).toEqual({
      company: { id: a.companyId, name: company.name },
      token: { id: a.tokenId, scope: "write", created_at: token.created_at.toISOString() },
      rate_limit: { limit: 300, window_seconds: 60 },
    });
    expect(JSON.stringify(res.body)).not.toContain(a.token);
    // The limit is the one the limiter applies: the same as the answer's own X-RateLimit-Limit.
    expect(res.headers.get("x-ratelimit-limit")).toBe("300");
  });

  it("each company's token sees its own company, a read token included; without a known token it is 401", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { token: readToken, token_id } = await createToken(db(), { companyId: b.companyId, scope: "read" });
    const asB = await call("GET", "/me", { token: readToken });
    expect(asB.status).toBe(200);
    expect(asB.body.company.id).toBe(b.companyId);
    expect(asB.body.token).toMatchObject({ id: token_id, scope: "read" });
    expect((await a.get("/me")).body.company.id).toBe(a.companyId);
    expectError(await call("GET", "/me", { token: "f".repeat(64) }), 401, "unauthenticated");
    expectError(await call("GET", "/me"), 401, "unauthenticated");
  });
});
