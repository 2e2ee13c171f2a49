import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createToken, revokeToken } from "../tools/ops/commands";
import { call, db, expectError, newCompany, sql, waitFor, workerLogLines } from "./support/api";

describe("authentication", () => {
  it.each([
    ["no header", undefined],
    ["wrong scheme", "Basic dXNlcjpwYXNz"],
    ["bearer without token", "Bearer "],
    ["63 hex chars", `Bearer ${"a".repeat(63)}`],
    ["65 hex chars", `Bearer ${"a".repeat(65)}`],
    ["non-hex", `Bearer ${"g".repeat(64)}`],
    ["unknown token", `Bearer ${"0".repeat(64)}`],
  ])("401 unauthenticated for %s", async (_name, header) => {
    const res = await call("GET", "/clients", { headers: header ? { authorization: header } : {} });
    expectError(res, 401, "unauthenticated");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("matches the Bearer scheme case-insensitively (RFC 9110), the token in either case", async () => {
    const a = await newCompany();
    for (const header of [`bearer ${a.token}`, `BEARER ${a.token}`, `bEaReR  ${a.token.toUpperCase()}`]) {
      expect((await call("GET", "/clients", { headers: { authorization: header } })).status, header.slice(0, 8)).toBe(200);
    }
    // A malformed header still says what is expected.
    const err = expectError(await call("GET", "/clients", { headers: { authorization: `Token ${a.token}` } }), 401, "unauthenticated");
    expect(err.message).toMatch(/Bearer <64 hex characters>/);
  });

  it("401 for a revoked token, while the company's other token still works", async () => {
    const a = await newCompany();
    const other = await createToken(db(), { companyId: a.companyId });
    expect((await a.get("/clients")).status).toBe(200);
    await revokeToken(db(), { tokenId: a.tokenId });
    expectError(await a.get("/clients"), 401, "unauthenticated");
    expect((await call("GET", "/clients", { token: other.token })).status).toBe(200);
  });

  it("stores only the SHA-256 digest of the token", async () => {
    const a = await newCompany();
    const [row] = await sql<{ token_hash: string }>("select token_hash from api_tokens where id = $1", [a.tokenId]);
    expect(row.token_hash).toBe(createHash("sha256").update(a.token).digest("hex"));
    const raw = await sql("select 1 from api_tokens t where t::text like $1", [`%${a.token}%`]);
    expect(raw).toEqual([]);
  });

  it("writes last_used_at after use, at most about once a minute", async () => {
    const a = await newCompany();
    const lastUsed = async () =>
      (await sql<{ t: Date | null }>("select last_used_at as t from api_tokens where id = $1", [a.tokenId]))[0].t;
    expect(await lastUsed()).toBeNull();
    await a.get("/clients");
    await waitFor("last_used_at to be written", lastUsed, (t) => t !== null);
    const first = (await lastUsed())!.getTime();
    await a.get("/clients");
    await a.get("/clients");
    await new Promise((r) => setTimeout(r, 300));
    expect((await lastUsed())!.getTime()).toBe(first);

    await sql("update api_tokens set last_used_at = now() - interval '2 minutes' where id = $1", [a.tokenId]);
    const stale = (await lastUsed())!.getTime();
    await a.get("/clients");
    await waitFor("last_used_at to move on", lastUsed, (t) => t!.getTime() > stale);
  });

  it("uses the company of the token for every read and write", async () => {
    const a = await newCompany();
    const res = await a.post("/clients", { company_name: "Scoped" });
    const [row] = await sql("select company_id from clients where id = $1", [res.body.client.id]);
    expect(row.company_id).toBe(a.companyId);
  });
});

describe("request ids and logs", () => {
  it("puts X-Request-Id on every response, echoing a sane incoming id", async () => {
    const a = await newCompany();
    for (const res of [await a.get("/clients"), await call("GET", "/clients"), await a.get("/nope"), await call("GET", "/openapi.json")]) {
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    const echoed = await a.get("/clients", { headers: { "x-request-id": "trace-abc.123" } });
    expect(echoed.headers.get("x-request-id")).toBe("trace-abc.123");
    const replaced = await a.get("/clients", { headers: { "x-request-id": "bad id with spaces" } });
    expect(replaced.headers.get("x-request-id")).not.toBe("bad id with spaces");
  });

  it("logs structured JSON lines carrying the request id, never the token", async () => {
    const a = await newCompany();
    const res = await a.get("/clients?q=logcheck");
    const id = res.headers.get("x-request-id")!;
    const lines: Record<string, unknown>[] = await waitFor(
      "the request's log line",
      () =>
        workerLogLines()
          .filter((l) => l.includes(id))
          .map((l) => JSON.parse(l.slice(l.indexOf("{")))),
      (ls) => ls.length > 0,
    );
    expect(lines[0]).toMatchObject({ level: "info", msg: "request", request_id: id, status: 200, method: "GET", company_id: a.companyId });
    expect(workerLogLines().some((l) => l.includes(a.token))).toBe(false);
  });

  it("keeps e-mail addresses out of request lines: a path segment holding one is logged as {email}", async () => {
    const a = await newCompany();
    const email = `log.check+${Date.now()}@example.com`;
    expect((await a.post("/clients", { company_name: "Logged Co", email })).status).toBe(200);
    const requests = [
      await a.get(`/clients/${email}`),
      await a.get(`/clients/${encodeURIComponent(email)}`),
      await a.patch(`/clients/${email}`, { phone: "555-0100" }),
      await a.get(`/clients/nobody@example.com/x`),
    ];
    expect(requests.map((r) => r.status)).toEqual([200, 200, 400, 404]); // a PATCH takes an id, not an address
    const ids = requests.map((r) => r.headers.get("x-request-id")!);
    const lines = await waitFor(
      "the requests' log lines",
      () =>
        workerLogLines()
          .filter((l) => ids.some((id) => l.includes(id)))
          .map((l) => JSON.parse(l.slice(l.indexOf("{")))),
      (ls) => ls.filter((l) => l.msg === "request").length === ids.length,
    );
    expect(lines.filter((l) => l.msg === "request").map((l) => l.path)).toEqual([
      "/api/v1/clients/{email}",
      "/api/v1/clients/{email}",
      "/api/v1/clients/{email}",
      "/api/v1/clients/{email}/x",
    ]);
    expect(workerLogLines().filter((l) => l.includes(email.split("@")[0]) || l.includes("nobody@"))).toEqual([]);
  });
});
