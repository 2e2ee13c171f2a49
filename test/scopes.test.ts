import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createToken } from "../tools/ops/commands";
import { asRequest, call, db, expectError, newCompany, sql, waitFor } from "./support/api";
import { companyRows, documentChecker, populated, tokenOperations } from "./support/operations";
import { newOrder } from "./support/orders";

describe("token scopes", () => {
  it("a read token gets 403 forbidden on every non-GET operation of the document and changes nothing; every GET is allowed", async () => {
    const co = await newCompany();
    const { concrete } = await populated(co);
    const { token: readToken } = await createToken(db(), { companyId: co.companyId, scope: "read" });
    // The request log shows a token its own requests only: the read token reads one of its own.
    const own = `scopes-${randomUUID()}`;
    await call("GET", "/me", { token: readToken, headers: { "x-request-id": own } });
    await waitFor(
      "the read token's entry",
      () => call("GET", `/request-logs?operation=getMe`, { token: readToken }),
      (res) => res.body.data.some((e: { request_id: string }) => e.request_id === own),
    );
    const before = await companyRows(co.companyId);
    expect(before.clients.length).toBeGreaterThan(0);
    const ops = await tokenOperations();
    const conforms = await documentChecker();
    let writes = 0;
    for (const operation of ops) {
      const { path, method, op } = operation;
      const what = `${method.toUpperCase()} ${path}`;
      if (method === "get") {
        expect(op["x-required-scope"], what).toBe("read");
        expect(op.responses["403"], what).toBeUndefined();
        const url = op.operationId === "getRequestLog" ? `/request-logs/${own}` : concrete(operation);
        const res = await call("GET", url, { token: readToken });
        expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
        conforms(operation, res);
        continue;
      }
      writes++;
      expect(op["x-required-scope"], what).toBe("write");
      expect(op.description, what).toContain("Scope: `write`");
      expect(op.responses["403"].content["application/json"].schema.$ref, what).toBe("#/components/schemas/Error");
      const res = await call(method.toUpperCase(), concrete(operation), { token: readToken, ...(op.requestBody ? { body: {} } : {}) });
      const err = expectError(res, 403, "forbidden");
      conforms(operation, res);
      expect(err.details, what).toEqual({ required_scope: "write", token_scope: "read" });
      // Answered after the limiter ran, like every other authenticated answer.
      expect(res.headers.get("x-ratelimit-limit"), what).toBeTruthy();
    }
    expect(writes).toBeGreaterThanOrEqual(10);
    expect(await companyRows(co.companyId)).toEqual(before);
  });

  it("refuses a valid write from a read token that the company's write token is allowed", async () => {
    const co = await newCompany();
    const { token: readToken } = await createToken(db(), { companyId: co.companyId, scope: "read" });
    const { project } = await newOrder(co);
    // Twice: the second answer comes from the per-isolate token cache, which carries the scope.
    for (let i = 0; i < 2; i++) {
      expectError(await call("POST", "/clients", { token: readToken, body: { company_name: "Read Co" } }), 403, "forbidden");
      expectError(await call("DELETE", `/orders/${project.id}`, { token: readToken }), 403, "forbidden");
    }
    expect(await sql("select 1 from clients where company_id = $1 and company_name = 'Read Co'", [co.companyId])).toEqual([]);
    expect((await call("GET", `/orders/${project.id}`, { token: readToken })).status).toBe(200);
    expect((await co.post("/clients", { company_name: "Read Co" })).status).toBe(200);
    expect((await co.del(`/orders/${project.id}`)).status).toBe(200);
  });

  it("a read token of another company gets 404 for a row it does not own, exactly as for a missing row", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { project } = await newOrder(a);
    const { token: bRead } = await createToken(db(), { companyId: b.companyId, scope: "read" });
    const foreign = await call("GET", `/orders/${project.id}`, asRequest("foreign-or-missing", { token: bRead }));
    const missing = await call("GET", "/orders/2147483647", asRequest("foreign-or-missing", { token: bRead }));
    expectError(foreign, 404, "not_found");
    expect(foreign.body).toEqual(missing.body);
  });

  it("tokens without a stated scope are write tokens; the database refuses any other scope", async () => {
    const co = await newCompany();
    const [row] = await sql<{ scope: string }>("select scope from api_tokens where id = $1", [co.tokenId]);
    expect(row.scope).toBe("write");
    await expect(
      sql("insert into api_tokens (company_id, token_hash, scope) values ($1, $2, 'admin')", [co.companyId, "f".repeat(64)]),
    ).rejects.toThrow(/api_tokens_scope_ck/);
  });
});
