import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { call, db, expectError, newCompany, sql, type TestCompany, waitFor, workerLogLines } from "../../../test/support/api";
import { mcpClient, postMcp, toolAnswer } from "../../../test/support/mcp";
import { createToken } from "../../../tools/ops/commands";

const rid = (what: string) => `rl-${what}-${randomUUID()}`;

/** Polls the caller's own entry of `requestId` until the queue's consumer has written it (waitFor's deadline). */
const entryOf = (token: string, requestId: string, done: (body: any) => boolean = () => true) =>
  waitFor(
    `the request log entry of ${requestId}`,
    () => call("GET", `/request-logs/${requestId}`, { token }),
    (res) => res.status === 200 && done(res.body),
  ).then((res) => res.body);

const listOf = async (co: { token: string }, query: string) => {
  const res = await call("GET", `/request-logs?${query}`, { token: co.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe("request log", () => {
  it("an error's request_id finds its entry: operation, status, error code, the caller's token, the path without search text or e-mails", async () => {
    const co = await newCompany();
    const id = rid("error");
    const res = await co.get("/clients/999999999", { headers: { "x-request-id": id } });
    expectError(res, 404, "not_found");
    expect(res.body.error.request_id).toBe(id);
    const entry = await entryOf(co.token, res.body.error.request_id);
    expect(entry).toMatchObject({
      request_id: id,
      seq: 0,
      method: "GET",
      path: "/api/v1/clients/999999999",
      operation: "getClient",
      tool: null,
      status: 404,
      error_code: "not_found",
      token_id: co.tokenId,
      oauth_grant_id: null,
      user_id: null,
      idempotency_key: null,
      idempotent_replay: false,
      tool_calls: [],
    });
    expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(entry.created_at)).toBeGreaterThan(Date.now() - 120_000);

    const search = rid("search");
    await co.get("/clients?q=Secret%20Person&per_page=5", { headers: { "x-request-id": search } });
    const byEmail = rid("email");
    await co.get("/clients/ana%40example.com", { headers: { "x-request-id": byEmail } });
    expect((await entryOf(co.token, search)).path).toBe("/api/v1/clients?q=[redacted]&per_page=5");
    expect((await entryOf(co.token, byEmail)).path).toBe("/api/v1/clients/{email}");
  });

  it("a token reads its own entries only: another token of the same company (a read token) gets 404 and an empty list", async () => {
    const co = await newCompany();
    const { token: readToken, token_id: readTokenId } = await createToken(db(), { companyId: co.companyId, scope: "read" });
    const id = rid("own");
    expect((await co.post("/clients", { company_name: "Logged Co" }, { headers: { "x-request-id": id } })).status).toBe(200);
    const own = rid("reader");
    expect((await call("GET", "/clients", { token: readToken, headers: { "x-request-id": own } })).status).toBe(200);
    const entry = await entryOf(co.token, id);
    expect(entry).toMatchObject({ method: "POST", operation: "createClient", status: 200, error_code: null });
    await entryOf(readToken, own);

    const foreign = await call("GET", `/request-logs/${id}`, { token: readToken, headers: { "x-request-id": "rl-same" } });
    const missing = await call("GET", `/request-logs/${rid("none")}`, { token: readToken, headers: { "x-request-id": "rl-same" } });
    expectError(foreign, 404, "not_found");
    expect(foreign.body).toEqual(missing.body);
    const readerList = (await listOf({ token: readToken }, "per_page=100")).data;
    expect(readerList.map((e: any) => e.request_id)).not.toContain(id);
    expect(readerList.map((e: any) => e.request_id)).toContain(own);
    expect(readerList.every((e: any) => e.token_id === readTokenId)).toBe(true);
    // Asking for the other token's entries by token_id reads nothing either.
    expect((await listOf({ token: readToken }, `token_id=${co.tokenId}`)).data).toEqual([]);
  });

  it("company B never sees company A's entries, and gets the same 404 as for a missing one", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const id = rid("tenant");
    await a.get("/clients", { headers: { "x-request-id": id } });
    await entryOf(a.token, id);
    const foreign = await b.get(`/request-logs/${id}`, { headers: { "x-request-id": "rl-tenant" } });
    const missing = await b.get(`/request-logs/${rid("missing")}`, { headers: { "x-request-id": "rl-tenant" } });
    expectError(foreign, 404, "not_found");
    expect(foreign.body).toEqual(missing.body);
    expect((await listOf(b, `token_id=${a.tokenId}`)).data).toEqual([]);
    expect((await listOf(b, "per_page=100")).data.map((e: any) => e.request_id)).not.toContain(id);
  });

  it("flags an idempotent replay and keeps the Idempotency-Key", async () => {
    const co = await newCompany();
    const key = randomUUID();
    const [first, second] = [rid("idem1"), rid("idem2")];
    const body = { company_name: "Once Co" };
    const one = await co.post("/clients", body, { headers: { "idempotency-key": key, "x-request-id": first } });
    const two = await co.post("/clients", body, { headers: { "idempotency-key": key, "x-request-id": second } });
    expect(two.headers.get("idempotent-replayed")).toBe("true");
    expect(two.body).toEqual(one.body);
    expect(await entryOf(co.token, first)).toMatchObject({ idempotency_key: key, idempotent_replay: false, status: one.status });
    expect(await entryOf(co.token, second)).toMatchObject({ idempotency_key: key, idempotent_replay: true, status: one.status });
  });

  it("filters by status (code or class), method and operation, newest first, and walks with the cursor", async () => {
    const co = await newCompany();
    const ids: string[] = [];
    for (const [method, path] of [
      ["GET", "/clients/999999998"],
      ["GET", "/clients"],
      ["POST", "/clients"],
      ["GET", "/orders"],
    ] as const) {
      const id = rid("filter");
      ids.push(id);
      await call(method, path, { token: co.token, headers: { "x-request-id": id }, ...(method === "POST" ? { body: {} } : {}) });
    }
    const requestIds = async (query: string) => (await listOf(co, query)).data.map((e: any) => e.request_id);
    // Waits through the list (200s): polling each entry would log 404s of its own.
    await waitFor(
      "the four entries",
      () => requestIds("per_page=100"),
      (seen) => ids.every((id) => seen.includes(id)),
    );
    expect(await requestIds("status=4xx")).toEqual([ids[2], ids[0]]);
    expect(await requestIds("status=404")).toEqual([ids[0]]);
    expect(await requestIds("method=POST")).toEqual([ids[2]]);
    expect(await requestIds("operation=listOrders")).toEqual([ids[3]]);
    const all = await requestIds("per_page=100");
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await listOf(co, `per_page=2${cursor ? `&cursor=${cursor}` : ""}`);
      walked.push(...page.data.map((e: any) => e.request_id));
      cursor = page.pagination.next_cursor;
    } while (cursor && walked.length < 100);
    expect(walked).toEqual(all);
    for (const [query, field] of [
      ["status=4x", "status"],
      ["method=TRACE", "method"],
      ["since=yesterday", "since"],
      ["per_page=101", "per_page"],
      ["cursor=nope", "cursor"],
    ]) {
      expect(expectError(await co.get(`/request-logs?${query}`), 400, "invalid_request").details, query).toEqual([
        expect.objectContaining({ field }),
      ]);
    }
  });

  it("each MCP tool call is its own entry, naming the tool, under the MCP request's id", async () => {
    const co = await newCompany();
    const id = rid("mcp");
    const res = await postMcp(
      co.token,
      [
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_clients", arguments: {} } },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_client", arguments: { id: "999999997" } } },
      ],
      { "x-request-id": id },
    );
    expect(res.status).toBe(200);
    const entry = await entryOf(co.token, id, (e) => e.seq === 0 && e.tool_calls.length === 2);
    expect(entry).toMatchObject({ operation: "mcp", method: "POST", path: "/api/v1/mcp", status: 200 });
    expect(entry.tool_calls).toEqual([
      expect.objectContaining({ seq: 1, tool: "list_clients", operation: "listClients", status: 200, request_id: id }),
      expect.objectContaining({ seq: 2, tool: "get_client", operation: "getClient", status: 404, error_code: "not_found" }),
    ]);
  });

  it("the MCP tool list_request_logs lists the caller's own requests, filtered as the API list is", async () => {
    const co = await newCompany();
    const id = rid("mcp-list");
    await co.get("/clients/999999995", { headers: { "x-request-id": id } });
    const client = await mcpClient(co.token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["list_request_logs", "get_request_log"]));
      const answer = await waitFor(
        "the entry through the tool",
        () => toolAnswer(client, "list_request_logs", { operation: "getClient" }),
        (body) => body.data.length === 1,
      );
      expect(answer.data[0]).toMatchObject({ request_id: id, status: 404, error_code: "not_found", token_id: co.tokenId });
    } finally {
      await client.close();
    }
  });

  it("a failing log store fails no request: answers are unchanged, and the entries are written once the store is back", async () => {
    const co = await newCompany();
    const id = rid("store-down");
    const before = await co.get("/clients");
    const linesBefore = workerLogLines().length;
    await sql("alter table request_logs rename to request_logs_away");
    let during: Awaited<ReturnType<TestCompany["get"]>>;
    try {
      during = await co.get("/clients", { headers: { "x-request-id": id } });
      // The consumer got the entry and could not write it (the queue delivers it again later).
      await waitFor(
        "the consumer's failed write",
        () => workerLogLines().slice(linesBefore),
        (lines) => lines.some((l) => l.includes("request log batch not written")),
      );
    } finally {
      await sql("alter table request_logs_away rename to request_logs");
    }
    expect(during.status).toBe(200);
    expect(during.body).toEqual(before.body);
    expect(await entryOf(co.token, id)).toMatchObject({ status: 200, operation: "listClients" });
  });
});
