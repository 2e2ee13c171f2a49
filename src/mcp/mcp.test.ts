import { randomUUID } from "node:crypto";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { Redis } from "ioredis";
import { describe, expect, inject, it } from "vitest";
import { apiUrl, asRequest, call, db, expectError, newCompany, sql } from "../../test/support/api";
import { callTool, type McpClient, mcpClient, postMcp, toolAnswer, toolArguments } from "../../test/support/mcp";
import { companyRows, type Operation, populated, tokenOperations } from "../../test/support/operations";
import { newClient, newOrder, outboxRows } from "../../test/support/orders";
import { earlyInMinute, windowKey } from "../../test/support/ratelimit";
import { webhookEvents } from "../../test/support/webhooks";
import { createToken, revokeToken } from "../../tools/ops/commands";
import { toolName } from "./catalog";

/** The document's operations that are tools: every token operation but webhook-endpoint management. */
async function toolOperations(): Promise<Operation[]> {
  return (await tokenOperations()).filter(({ op }) => !op.tags.includes("Webhooks"));
}

const post = postMcp;
const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

describe("MCP endpoint: the session", () => {
  it("initializes (server info, instructions, the tools capability) and answers 405 to GET and DELETE", async () => {
    const co = await newCompany();
    const client = await mcpClient(co.token);
    expect(client.getServerVersion()).toMatchObject({ name: "crm-api", version: "1.0.0" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toContain("idempotency_key");
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${inject("apiUrl")}/mcp`, {
        method,
        headers: { authorization: `Bearer ${co.token}`, accept: "text/event-stream" },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
    await client.close();
  });

  it("answers a body that is not JSON with the JSON-RPC parse error, and a wrong Accept with 406", async () => {
    const co = await newCompany();
    const garbled = await fetch(`${inject("apiUrl")}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${co.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{not json",
    });
    expect(garbled.status).toBe(400);
    expect(((await garbled.json()) as any).error.code).toBe(-32700);
    expect((await post(co.token, initialize, { accept: "application/json" })).status).toBe(406);
  });

  it("refuses a missing, malformed, unknown or revoked token with 401 and WWW-Authenticate before any message is handled", async () => {
    const co = await newCompany();
    const { token: revoked, token_id } = await createToken(db(), { companyId: co.companyId });
    await revokeToken(db(), { tokenId: token_id });
    const unknown = randomUUID().replaceAll("-", "").repeat(2);
    const toolsCall = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "create_client", arguments: { company_name: "Never" } },
    };
    for (const token of [undefined, "not-a-token", unknown, revoked]) {
      for (const message of [initialize, toolsCall]) {
        const res = await post(token, message);
        expect(res.status, `${token} ${message.method}`).toBe(401);
        // The challenge names the OAuth metadata (src/oauth/); the token-only URL's does not (src/oauth/oauth.test.ts).
        expect(res.headers.get("www-authenticate")).toBe(
          `Bearer realm="api", resource_metadata="${new URL(apiUrl()).origin}/.well-known/oauth-protected-resource/api/v1/mcp"`,
        );
        expect(((await res.json()) as any).error.code).toBe("unauthenticated");
      }
    }
    await expect(mcpClient(revoked)).rejects.toMatchObject({ code: 401 });
    expect(await sql("select 1 from clients where company_id = $1", [co.companyId])).toEqual([]);
  });
});

describe("MCP tools: the document's operations", () => {
  it("lists one tool per operation of the document but webhook-endpoint management and health, named after its operationId; a read token, the GET ones", async () => {
    const co = await newCompany();
    const { token: readToken } = await createToken(db(), { companyId: co.companyId, scope: "read" });
    const operations = await toolOperations();
    const write = await (await mcpClient(co.token)).listTools();
    const read = await (await mcpClient(readToken)).listTools();
    expect(write.tools.map((t) => t.name)).toEqual(operations.map(({ op }) => toolName(op.operationId)));
    expect(read.tools.map((t) => t.name)).toEqual(
      operations.filter(({ method }) => method === "get").map(({ op }) => toolName(op.operationId)),
    );
    expect(write.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["list_clients", "create_order_item", "get_order", "search_products"]),
    );
    expect(write.tools.some((t) => t.name.includes("webhook") || t.name.includes("health"))).toBe(false);

    for (const { path, method, op } of operations) {
      const tool = write.tools.find((t) => t.name === toolName(op.operationId))!;
      const params = (op.parameters ?? []) as { name: string; in: string; required?: boolean }[];
      const bodySchema = op.requestBody?.content["application/json"].schema;
      const body = bodySchema?.$ref
        ? (await call("GET", "/openapi.json")).body.components.schemas[bodySchema.$ref.split("/").pop()]
        : bodySchema;
      // Path, query and body as one object; the Idempotency-Key header as `idempotency_key`.
      const expected = [
        ...params.filter((p) => p.in === "path" || p.in === "query").map((p) => p.name),
        ...(params.some((p) => p.name === "idempotency-key") ? ["idempotency_key"] : []),
        ...Object.keys(body?.properties ?? {}),
      ];
      expect(Object.keys(tool.inputSchema.properties ?? {}), `${method} ${path}`).toEqual(expected);
      expect(tool.inputSchema.required ?? []).toEqual(
        expect.arrayContaining(params.filter((p) => p.in === "path" || p.required).map((p) => p.name)),
      );
      expect(tool.annotations?.readOnlyHint).toBe(method === "get");
      expect(tool.title).toBe(op.summary);
      expect(tool.description).toContain(op.summary);
      expect(tool.description).not.toContain("Scope: `");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
    }
  });

  it("gives every tool input and output schemas that draft-07 and 2020-12 validators compile in strict mode", async () => {
    const co = await newCompany();
    const { tools } = await (await mcpClient(co.token)).listTools();
    // Clients validate with either; strict mode refuses keywords neither draft defines (OpenAPI's `example`) and unresolved references.
    for (const ajv of [new Ajv({ strict: true }), new Ajv2020({ strict: true })]) {
      addFormats(ajv);
      for (const tool of tools) {
        for (const schema of [tool.inputSchema, tool.outputSchema]) {
          if (!schema) continue;
          expect(() => ajv.compile(schema), tool.name).not.toThrow();
          expect(JSON.stringify(schema), tool.name).not.toContain("$ref");
        }
      }
    }
  });

  it("a read tool answers what its GET operation answers, on every GET operation", async () => {
    const co = await newCompany();
    const { concrete } = await populated(co);
    const client = await mcpClient(co.token);
    let reads = 0;
    for (const operation of (await toolOperations()).filter(({ method }) => method === "get")) {
      const rest = await call("GET", concrete(operation), { token: co.token });
      expect(rest.status, `${operation.path}: ${JSON.stringify(rest.body)}`).toBe(200);
      const answer = await toolAnswer(client, toolName(operation.op.operationId), toolArguments(operation, concrete(operation)));
      expect(answer, operation.path).toEqual(rest.body);
      reads++;
    }
    expect(reads).toBeGreaterThanOrEqual(8);
  });

  it("tenancy on every tool that addresses a row: company B on company A's ids gets exactly the answer for ids that do not exist, and A's rows do not change", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { concrete, missing, addressesRow, body } = await populated(a);
    // One request id for every call: the error envelope carries it, and everything else must be the same.
    const client = await mcpClient(b.token, undefined, "mcp-tenancy");
    const before = await companyRows(a.companyId);
    // PUTs last: B's PUT stores a thread of B's own under A's id, which B's GET would then find.
    const addressing = (await toolOperations())
      .filter(addressesRow)
      .sort((x, y) => Number(x.method === "put") - Number(y.method === "put"));
    for (const operation of addressing) {
      const name = toolName(operation.op.operationId);
      const foreign = await callTool(client, name, toolArguments(operation, concrete(operation), body(operation)));
      const absent = await callTool(client, name, toolArguments(operation, missing(operation), body(operation)));
      if (operation.method === "put") {
        // B's own row under that id, or B's body refused alike (A's client id in it).
        expect([foreign.isError, foreign.error?.code], name).toEqual([absent.isError, absent.error?.code]);
        continue;
      }
      expect(foreign.error?.code, `${name}: ${foreign.text}`).toBe("not_found");
      expect(foreign.text, name).toEqual(absent.text);
    }
    expect(addressing.length).toBeGreaterThanOrEqual(15);
    expect(await companyRows(a.companyId)).toEqual(before);
  });

  it("company B's list and search tools never show company A's rows; A's do", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { concrete, addressesRow, marker } = await populated(a);
    const listings = (await toolOperations()).filter((operation) => operation.method === "get" && !addressesRow(operation));
    expect(listings.length).toBeGreaterThanOrEqual(3);
    const [mine, theirs] = [await mcpClient(a.token), await mcpClient(b.token)];
    // What an answer shows of the company's rows (a search echoes its query: left out).
    const shown = (body: Record<string, unknown>) => JSON.stringify({ ...body, query: undefined });
    for (const operation of listings) {
      const name = toolName(operation.op.operationId);
      const args = toolArguments(operation, concrete(operation));
      expect(shown(await toolAnswer(mine, name, args)), name).toContain(marker);
      expect(shown(await toolAnswer(theirs, name, args)), name).not.toContain(marker);
    }
  });

  it("a read token calling any write tool gets the tool error forbidden, and nothing changes", async () => {
    const co = await newCompany();
    const { concrete, body } = await populated(co);
    const { token: readToken } = await createToken(db(), { companyId: co.companyId, scope: "read" });
    const client = await mcpClient(readToken, undefined, "mcp-read-token");
    const before = await companyRows(co.companyId);
    const writes = (await toolOperations()).filter(({ method }) => method !== "get");
    for (const operation of writes) {
      const name = toolName(operation.op.operationId);
      const refused = await callTool(client, name, toolArguments(operation, concrete(operation), body(operation)));
      expect(refused.isError, name).toBe(true);
      expect(refused.error, name).toEqual({
        code: "forbidden",
        message: expect.any(String),
        details: { required_scope: "write", token_scope: "read" },
        request_id: "mcp-read-token",
      });
    }
    expect(writes.length).toBeGreaterThanOrEqual(10);
    expect(await companyRows(co.companyId)).toEqual(before);
  });
});

describe("MCP tools: calls", () => {
  it("search, read, create and update tools act like the REST operations: the rows are there through the API, with their events and outbox rows", async () => {
    const co = await newCompany({ accountingSync: true });
    const client = await mcpClient(co.token);
    const { client: created } = await toolAnswer(client, "create_client", {
      company_name: "Harbor Rowing Club",
      email: "coach@harbor.example",
    });
    expect((await co.get(`/clients/${created.id}`)).body.client).toEqual(created);

    const found = await toolAnswer(client, "list_clients", { q: "harbor row" });
    expect(found.data.map((c: { id: number }) => c.id)).toEqual([created.id]);
    expect(found).toEqual((await co.get("/clients?q=harbor%20row")).body);

    const { client: renamed } = await toolAnswer(client, "update_client", { id: created.id, phone: "555-0199" });
    expect(renamed.phone).toBe("555-0199");
    expect((await co.get(`/clients/${created.id}`)).body.client.phone).toBe("555-0199");
    expect(await toolAnswer(client, "get_client", { id: created.id })).toEqual((await co.get(`/clients/${created.id}`)).body);

    const order = await toolAnswer(client, "create_order", { title: "Regatta shirts", client_id: created.id });
    const item = await toolAnswer(client, "create_order_item", { id: order.project.id, title: "Shirt", quantity: 12, unit_price: "15.00" });
    expect(item.invoice.totals.total).toBe("180.00");
    const rest = await co.get(`/orders/${order.project.id}`);
    expect(rest.body.invoice_items.map((i: { title: string }) => i.title)).toEqual(["Shirt"]);
    expect(await toolAnswer(client, "get_order", { id: order.project.id })).toEqual(rest.body);

    // The same events and accounting rows as the REST writes make.
    const events = (await webhookEvents(co.companyId)).map((e) => `${e.type} ${e.resource_id}`);
    expect(events).toEqual(
      expect.arrayContaining([`client.created ${created.id}`, `client.updated ${created.id}`, `order.created ${order.project.id}`]),
    );
    expect((await outboxRows(order.project.id)).map((r) => r.operation)).toEqual(["create", "update"]);
  });

  it("a validation error is the route's own 400 as a tool error, naming the fields, with nothing written", async () => {
    const co = await newCompany();
    const client = await mcpClient(co.token, undefined, "mcp-refused");
    const same = asRequest("mcp-refused");
    const before = await companyRows(co.companyId);
    const refused = await callTool(client, "create_client", { email: "not an address", extra: 1 });
    expect(refused.isError).toBe(true);
    expect(refused.error?.code).toBe("invalid_request");
    expect(refused.error?.details.map((d: { field: string }) => d.field).sort()).toEqual(["company_name", "email", "extra"]);
    // Exactly what the REST operation answers for the same body.
    expect(refused.error).toEqual(
      expectError(await co.post("/clients", { email: "not an address", extra: 1 }, same), 400, "invalid_request"),
    );
    const longQuery = await callTool(client, "list_clients", { q: "a".repeat(201) });
    expect(longQuery.error).toEqual(expectError(await co.get(`/clients?q=${"a".repeat(201)}`, same), 400, "invalid_request"));
    const badId = await callTool(client, "get_order", { id: "0x1" });
    expect(badId.error).toEqual(expectError(await co.get("/orders/0x1", same), 400, "invalid_request"));
    expect(await companyRows(co.companyId)).toEqual(before);
  });

  it("arguments that make no request are refused as the API refuses input: a missing or path-changing path parameter, an argument a GET tool does not take, a key no header carries", async () => {
    const co = await newCompany();
    const client = await mcpClient(co.token, undefined, "mcp-no-request");
    const noId = await callTool(client, "get_order", {});
    expect(noId.error).toEqual({
      code: "invalid_request",
      message: "Invalid request path",
      details: [{ field: "id", message: "Required" }],
      request_id: "mcp-no-request",
    });
    const unknown = await callTool(client, "list_orders", { search: "hoodies" });
    expect(unknown.error?.details).toEqual([{ field: "search", message: "Unknown field" }]);
    // A dot segment would take the request to another path (`/orders/{id}/items` with `..` is `/items`).
    for (const id of ["..", ".", ""]) {
      const escaped = await callTool(client, "create_order_item", { id, title: "x", unit_price: "1.00" });
      expect(escaped.error?.details, id).toEqual([{ field: "id", message: "Must not be empty, '.' or '..'" }]);
    }
    // Percent signs and slashes stay inside the one segment: the route refuses the id.
    const slashed = await callTool(client, "get_order", { id: "1/../../clients" });
    expect(slashed.error).toEqual(
      expectError(await co.get("/orders/1%2F..%2F..%2Fclients", asRequest("mcp-no-request")), 400, "invalid_request"),
    );
    const badKey = await callTool(client, "create_client", { company_name: "Keyed", idempotency_key: "line\nbreak" });
    expect(badKey.error?.details).toEqual([{ field: "idempotency_key", message: "Must be 1 to 255 printable ASCII characters" }]);
    await expect(client.callTool({ name: "drop_everything", arguments: {} })).rejects.toThrow(McpError);
  });

  it("idempotency_key works as the Idempotency-Key header: a retry answers the first answer and writes once; another body is refused", async () => {
    const co = await newCompany();
    const client = await mcpClient(co.token);
    const clientId = await newClient(co);
    const key = randomUUID();
    const args = { title: "Retried order", client_id: clientId, idempotency_key: key };
    const first = await toolAnswer(client, "create_order", args);
    const retry = await toolAnswer(client, "create_order", args);
    expect(retry).toEqual(first);
    expect(await sql("select id from projects where company_id = $1 and title = 'Retried order'", [co.companyId])).toHaveLength(1);
    // The key is the header's: the REST operation with the same key and body replays it too.
    const rest = await co.post("/orders", { title: "Retried order", client_id: clientId }, { headers: { "idempotency-key": key } });
    expect(rest.headers.get("idempotent-replayed")).toBe("true");
    expect(rest.body).toEqual(first);
    const changed = await callTool(client, "create_order", { ...args, title: "Another order" });
    expect(changed.error?.code).toBe("invalid_request");
    expect(changed.error?.details[0].field).toBe("idempotency-key");
    expect(changed.result.isError).toBe(true);
  });
});

describe("MCP tools: the rate limit", () => {
  const remaining = async (co: Awaited<ReturnType<typeof newCompany>>) =>
    Number((await co.get("/clients?per_page=1")).headers.get("x-ratelimit-remaining"));

  it("counts each tools/call once, as the request it runs, and every other message as a request", async () => {
    // Late in a minute the window turns over between the two readings.
    await earlyInMinute(40_000);
    const co = await newCompany();
    const { project } = await newOrder(co);
    const start = await remaining(co);
    const client = await mcpClient(co.token);
    await toolAnswer(client, "get_order", { id: project.id });
    await toolAnswer(client, "create_order_item", { id: project.id, title: "Cap", unit_price: "9.00" });
    await callTool(client, "get_order", { id: 2147483000 }); // a 404 counts, as over HTTP
    await callTool(client, "get_order", {}); // refused before it runs its operation: counted by itself
    await client.listTools();
    // initialize and notifications/initialized, four calls, tools/list, and this GET itself.
    expect(await remaining(co)).toBe(start - 8);
    // A batch: each message once (tools/list twice, ping, a notification, a tool call by its operation).
    const before = await remaining(co);
    const batch = await post(co.token, [
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { jsonrpc: "2.0", id: 3, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "get_order", arguments: { id: project.id } } },
    ]);
    expect(((await batch.json()) as { id: number }[]).map((a) => a.id)).toEqual([1, 2, 3, 4]);
    expect(await remaining(co)).toBe(before - 6);
  });

  it("a batch of tools/list over the rest of the minute is refused 429 as a whole, before any message runs", async () => {
    await earlyInMinute(40_000);
    const co = await newCompany();
    const { token } = await createToken(db(), { companyId: co.companyId });
    const redis = new Redis({ port: inject("redisPort"), lazyConnect: true });
    await redis.connect();
    try {
      await redis.set(windowKey(token), 10_000);
      const refused = await post(token, [
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
      ]);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(((await refused.json()) as any).error.code).toBe("rate_limited");
    } finally {
      redis.disconnect();
    }
  });

  it("a refused call is a tool error saying when to retry; a refused write changes nothing", async () => {
    const co = await newCompany();
    const { project } = await newOrder(co);
    // A token the isolate has not counted yet, so it holds no requests reserved ahead for it; no
    // initialize either (which counts), the calls only: the server is stateless.
    const { token } = await createToken(db(), { companyId: co.companyId });
    const client = {
      callTool: async ({ name, arguments: args }: { name: string; arguments: Record<string, unknown> }) => {
        const res = await post(token, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
        return ((await res.json()) as any).result;
      },
    } as unknown as McpClient;
    const redis = new Redis({ port: inject("redisPort"), lazyConnect: true });
    await redis.connect();
    try {
      const before = await companyRows(co.companyId);
      // Other isolates used up this key's minute.
      await redis.set(windowKey(token), 10_000);
      for (const [name, args] of [
        ["get_order", { id: project.id }],
        ["create_order_item", { id: project.id, title: "Refused", unit_price: "1.00" }],
        ["update_order", { id: project.id, title: "Refused" }],
      ] as const) {
        const refused = await callTool(client, name, args);
        expect(refused.isError, name).toBe(true);
        expect(refused.error?.code, name).toBe("rate_limited");
        const seconds = refused.error?.details.retry_after_seconds;
        expect(seconds).toBeGreaterThanOrEqual(1);
        expect(refused.text[1]).toBe(`Retry after ${seconds} seconds.`);
      }
      expect(await companyRows(co.companyId)).toEqual(before);
    } finally {
      redis.disconnect();
    }
  });
});
