import { describe, expect, it } from "vitest";
import { call, expectError, newCompany, sql } from "../../test/support/api";
import { postMcp } from "../../test/support/mcp";
import { newOrder } from "../../test/support/orders";
import { MCP_ANSWER_MAX_BYTES, MCP_BATCH_MAX } from "./limits";

/** A JSON-RPC message as raw text, so numbers and strings arrive exactly as written. */
const toolsCall = (id: number | string, name: string, argumentsText: string) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"${name}","arguments":${argumentsText}}}`;
const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });

/** The answer's JSON-RPC messages (one or a batch's), its HTTP status and its size. */
async function answer(res: Response) {
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  return { status: res.status, bytes: Buffer.byteLength(text), messages: (Array.isArray(body) ? body : body ? [body] : []) as any[] };
}
/** A tool result's error envelope. */
const envelope = (message: any) => {
  expect(message.result?.isError, JSON.stringify(message).slice(0, 300)).toBe(true);
  return JSON.parse(message.result.content[0].text).error;
};

describe("MCP batches: bounded", () => {
  it(`a batch holds at most ${MCP_BATCH_MAX} messages; as many tools/list as fit are answered whole, the rest are errors, all under ${MCP_ANSWER_MAX_BYTES} bytes`, async () => {
    const co = await newCompany();
    const full = await answer(
      await postMcp(
        co.token,
        Array.from({ length: MCP_BATCH_MAX }, (_, i) => list(i + 1)),
      ),
    );
    expect(full.status).toBe(200);
    expect(full.messages.map((m) => m.id)).toEqual(Array.from({ length: MCP_BATCH_MAX }, (_, i) => i + 1));
    // Each answered whole while the answer has room; from the first that would take it over, errors only.
    const whole = full.messages.findIndex((m) => !m.result);
    const answered = whole === -1 ? full.messages : full.messages.slice(0, whole);
    expect(answered.length).toBeGreaterThan(1);
    expect(answered.every((m) => m.result.tools.length > 30)).toBe(true);
    expect(full.messages.slice(answered.length).every((m) => m.error && !m.result)).toBe(true);
    expect(full.bytes).toBeLessThanOrEqual(MCP_ANSWER_MAX_BYTES);
    for (const size of [MCP_BATCH_MAX + 1, 100]) {
      const over = await answer(
        await postMcp(
          co.token,
          Array.from({ length: size }, (_, i) => list(i + 1)),
        ),
      );
      expect(over.status, String(size)).toBe(400);
      expect(over.messages).toEqual([
        { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining(String(MCP_BATCH_MAX)) } },
      ]);
    }
  });

  // Megabytes of threads stored and read back: a few seconds each on a loaded machine.
  it("an answer never exceeds the maximum: a large read is sent once (structured), a larger one is a tool error saying so", {
    timeout: 120_000,
  }, async () => {
    const co = await newCompany();
    const thread = async (id: string, bytes: number) => {
      for (let attempt = 1; ; attempt++) {
        const res = await call("PUT", `/mail/email-threads/${id}`, {
          token: co.token,
          rawBody: `{"account_email":"orders@shop.example","messages":[{"id":"m1","body_html":"${"x".repeat(bytes)}"}]}`,
          headers: { "content-type": "application/json" },
        });
        // Megabytes through the local database proxy on a loaded machine: a 503 asks to retry, as a client would.
        if (res.status !== 503 || attempt === 3) return res;
        await new Promise((resolve) => setTimeout(resolve, 1000 * res.body.error.details.retry_after_seconds));
      }
    };
    const put = await thread("mcp-large", 3_300_000);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await thread("mcp-largest", 6_500_000)).status).toBe(200);
    const get = (id: string) =>
      postMcp(co.token, toolsCall(1, "get_email_thread", JSON.stringify({ legacyThreadId: id, account_email: "orders@shop.example" })));
    const large = await answer(await get("mcp-large"));
    expect(large.bytes).toBeLessThanOrEqual(MCP_ANSWER_MAX_BYTES);
    expect(large.messages[0].result.structuredContent.email_thread.messages[0].body_html).toHaveLength(3_300_000);
    expect(large.messages[0].result.content[0].text).toMatch(/^The answer is the structured content only/);
    const largest = await answer(await get("mcp-largest"));
    expect(largest.bytes).toBeLessThanOrEqual(MCP_ANSWER_MAX_BYTES);
    expect(envelope(largest.messages[0])).toMatchObject({ code: "invalid_request", details: { max_answer_bytes: expect.any(Number) } });
    // In a batch, the room is what the answers before left: the read that does not fit is refused, nothing lost.
    const batch = await answer(
      await postMcp(
        co.token,
        `[${toolsCall(1, "get_email_thread", JSON.stringify({ legacyThreadId: "mcp-large", account_email: "orders@shop.example" }))},${toolsCall(2, "get_email_thread", JSON.stringify({ legacyThreadId: "mcp-large", account_email: "orders@shop.example" }))}]`,
      ),
    );
    expect(batch.bytes).toBeLessThanOrEqual(MCP_ANSWER_MAX_BYTES);
    expect(batch.messages[0].result.structuredContent.email_thread.legacy_thread_id).toBe("mcp-large");
    expect(envelope(batch.messages[1]).details.answer_bytes).toBeGreaterThan(3_300_000);
  });

  it("a batch holding notifications/cancelled answers at once, every request of it, and the cancelled write's answer is sent", async () => {
    const co = await newCompany();
    const res = await postMcp(
      co.token,
      `[${toolsCall(7, "create_client", '{"company_name":"Cancelled Rowing"}')},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"changed my mind"}},{"jsonrpc":"2.0","id":8,"method":"ping"}]`,
    );
    const { status, messages } = await answer(res);
    expect(status).toBe(200);
    expect(messages.map((m) => m.id)).toEqual([7, 8]);
    const created = messages[0].result.structuredContent.client;
    expect(created.company_name).toBe("Cancelled Rowing");
    expect(await sql("select id from clients where company_id = $1", [co.companyId])).toEqual([{ id: created.id }]);
    // Cancelled first, then the call: it runs, and is answered.
    const later = await answer(
      await postMcp(
        co.token,
        `[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}},${toolsCall(9, "get_client", JSON.stringify({ id: String(created.id) }))}]`,
      ),
    );
    expect(later.messages[0].result.structuredContent.client.id).toBe(created.id);
  });
});

describe("MCP messages: as strict as HTTP", () => {
  it("checks numbers on the digits sent: 1e-400 and 1.0000000000000001 are refused as over HTTP, and nothing is written", async () => {
    const co = await newCompany();
    const { project } = await newOrder(co);
    const raw = '{"title":"Exact","quantity":1e-400,"unit_price":1.0000000000000001}';
    const mcp = await answer(
      await postMcp(co.token, toolsCall(1, "create_order_item", `{"id":${project.id},${raw.slice(1)}`), { "x-request-id": "mcp-exact" }),
    );
    const http = await call("POST", `/orders/${project.id}/items`, {
      token: co.token,
      rawBody: raw,
      headers: { "content-type": "application/json", "x-request-id": "mcp-exact" },
    });
    expect(envelope(mcp.messages[0])).toEqual(expectError(http, 400, "invalid_request"));
    expect(envelope(mcp.messages[0]).details[0].field).toBe("quantity");
    expect(await sql("select id from invoice_items where title = 'Exact' and company_id = $1", [co.companyId])).toEqual([]);
    // An id the double would change is no id: refused, not answered under another id.
    const id = await answer(await postMcp(co.token, '{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}'));
    expect(id.messages[0]).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("refuses path, query and key arguments that are not text, numbers or booleans, and lone surrogates, in the envelope; nothing is written", async () => {
    const co = await newCompany();
    const refused = async (name: string, args: string) =>
      envelope((await answer(await postMcp(co.token, toolsCall(1, name, args)))).messages[0]);
    expect(await refused("upsert_client", '{"external_id":{"a":1},"company_name":"Typed"}')).toMatchObject({
      code: "invalid_request",
      message: "Invalid request path",
      details: [{ field: "external_id", message: "Must be a string, a number or a boolean" }],
    });
    expect((await refused("get_order", '{"id":[1]}')).details).toEqual([
      { field: "id", message: "Must be a string, a number or a boolean" },
    ]);
    expect((await refused("get_client", '{"id":"\\ud800"}')).details).toEqual([
      { field: "id", message: expect.stringContaining("lone surrogate") },
    ]);
    expect((await refused("list_clients", '{"q":{"a":1}}')).details).toEqual([
      { field: "q", message: "Must be a string, a number or a boolean" },
    ]);
    expect((await refused("list_clients", '{"q":"\\udfff"}')).details).toEqual([
      { field: "q", message: expect.stringContaining("lone surrogate") },
    ]);
    expect((await refused("create_client", '{"company_name":"Keyed","idempotency_key":{"k":1}}')).details).toEqual([
      { field: "idempotency_key", message: "Must be 1 to 255 printable ASCII characters" },
    ]);
    // A list where the parameter takes one: each of a list parameter's values is checked.
    expect((await refused("list_events", '{"type":[{"a":1}]}')).details).toEqual([
      { field: "type", message: "Must be a string, a number, a boolean or a list of them" },
    ]);
    expect(await sql("select id from clients where company_id = $1", [co.companyId])).toEqual([]);
  });

  it("answers each malformed message with the JSON-RPC error the specification names, never -32603, and runs the others", async () => {
    const co = await newCompany();
    const single = async (text: string) => (await answer(await postMcp(co.token, text))).messages[0];
    expect(await single('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}')).toMatchObject({
      id: 1,
      error: { code: -32602 },
    });
    expect(await single('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_clients","arguments":[1]}}')).toMatchObject({
      id: 1,
      error: { code: -32602 },
    });
    expect(await single('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":5}}')).toMatchObject({
      id: 1,
      error: { code: -32602 },
    });
    expect(await single('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}')).toMatchObject({ id: 1, error: { code: -32602 } });
    expect(await single('{"jsonrpc":"2.0","id":1,"method":"initialize"}')).toMatchObject({ id: 1, error: { code: -32602 } });
    expect(await single('{"jsonrpc":"2.0","id":1,"method":"resources/list"}')).toMatchObject({ id: 1, error: { code: -32601 } });
    expect(await single('{"jsonrpc":"1.0","id":1,"method":"ping"}')).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(await single('{"id":1}')).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(await single("[]")).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await single("42")).toMatchObject({ id: null, error: { code: -32600 } });
    const batch = await answer(
      await postMcp(co.token, `[42,{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}]`),
    );
    expect(batch.messages).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: "2.0", id: 2, result: {} },
      { jsonrpc: "2.0", id: 3, error: { code: -32600, message: expect.stringContaining("batch") } },
    ]);
  });

  it("two requests of a batch with one id: neither runs, each is answered -32600", async () => {
    const co = await newCompany();
    const { status, messages } = await answer(
      await postMcp(
        co.token,
        `[${toolsCall(5, "create_client", '{"company_name":"Twice A"}')},${toolsCall(5, "create_client", '{"company_name":"Twice B"}')},{"jsonrpc":"2.0","id":"5","method":"ping"}]`,
      ),
    );
    expect(status).toBe(200);
    expect(messages).toEqual([
      { jsonrpc: "2.0", id: 5, error: { code: -32600, message: expect.stringContaining("neither was run") } },
      { jsonrpc: "2.0", id: 5, error: { code: -32600, message: expect.stringContaining("neither was run") } },
      { jsonrpc: "2.0", id: "5", result: {} },
    ]);
    expect(await sql("select id from clients where company_id = $1", [co.companyId])).toEqual([]);
  });
});
