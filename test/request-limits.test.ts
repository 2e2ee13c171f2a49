import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MAX_PATH_BYTES, MAX_QUERY_BYTES } from "../src/http/request-limits";
import { apiUrl, call, errorEnvelope, keepAliveClient, largeBody, newCompany, sql } from "./support/api";
import { callTool, mcpClient } from "./support/mcp";

/** The 414 envelope for a part over its limit. */
const tooLong = (part: "path" | "query") => ({
  code: "invalid_request",
  message: `The request ${part === "path" ? "path" : "query string"} is longer than 8192 bytes`,
  details: { part, max_bytes: 8192 },
});

describe("request size: the path and the query string (414)", () => {
  it("answers a 60 KB path 414 with the envelope and the caller's request id, before the token is looked at", async () => {
    const path = `/clients/${"x".repeat(60_000)}`;
    const id = randomUUID();
    for (const token of [undefined, "not-a-token"]) {
      const res = await call("GET", path, { token, headers: { "x-request-id": id } });
      expect(res.status).toBe(414);
      expect(res.headers.get("x-request-id")).toBe(id);
      expect(res.body).toEqual(errorEnvelope(res, tooLong("path")));
    }
  });

  it("answers a query string over 8 KiB 414, and takes a path and a query string of exactly 8 KiB", async () => {
    const co = await newCompany();
    const q = "y".repeat(MAX_QUERY_BYTES - 2);
    const over = await call("GET", `/clients?q=${q}z`, { token: co.token });
    expect(over.status).toBe(414);
    expect(over.body).toEqual(errorEnvelope(over, tooLong("query")));
    // At the limits the request goes on to the route, which refuses a search text that long and a path that is no id.
    const atQuery = await call("GET", `/clients?q=${q}`, { token: co.token });
    expect(atQuery.status).toBe(400);
    expect(atQuery.body.error.details).toMatchObject([{ field: "q" }]);
    const atPath = await call("GET", `/clients/${"1".repeat(MAX_PATH_BYTES - "/api/v1/clients/".length)}`, { token: co.token });
    expect(atPath.status).toBe(400);
  });

  it("drains the body of a POST refused 414, so the connection serves the next request", async () => {
    const co = await newCompany();
    const client = keepAliveClient();
    try {
      const refused = await client.send("POST", `/clients?x=${"z".repeat(MAX_QUERY_BYTES)}`, co.token, largeBody());
      const next = await client.send("GET", "/clients", co.token);
      expect([refused.status, next.status]).toEqual([414, 200]);
      expect(next.socket).toBe(refused.socket);
    } finally {
      client.close();
    }
    expect(await sql("select 1 from clients where company_id = $1", [co.companyId])).toEqual([]);
  });
});

describe("request size: an MCP tool call is held to the limits of the request it stands for", () => {
  it("answers a 300 KB path argument with a tool error carrying the 414 envelope", async () => {
    const co = await newCompany();
    const client = await mcpClient(co.token);
    const id = "x".repeat(300_000);
    const call = await callTool(client, "get_client", { id });
    expect(call.isError).toBe(true);
    expect(call.error).toMatchObject(tooLong("path"));
    // The session goes on.
    expect((await callTool(client, "list_clients", {})).isError).toBe(false);
  });

  it("answers a query argument over 8 KiB with the 414 envelope, and one at the limit as HTTP does (the route's own 400)", async () => {
    const co = await newCompany();
    const client = await mcpClient(co.token);
    const over = await callTool(client, "list_clients", { q: "y".repeat(MAX_QUERY_BYTES) });
    expect(over.error).toMatchObject(tooLong("query"));
    const at = await callTool(client, "list_clients", { q: "y".repeat(MAX_QUERY_BYTES - 2) });
    expect(at.error).toMatchObject({ code: "invalid_request", details: [{ field: "q" }] });
  });

  it("answers arguments whose body is over the route's limit with the 413 envelope, writing nothing", async () => {
    const co = await newCompany();
    // Under the MCP request's own 1 MiB, but each 1e20 is written out in 21 digits in the operation's body.
    const numbers = Array.from({ length: 200_000 }, () => "1e20").join(",");
    const text = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_client","arguments":{"company_name":"Big","tags":[${numbers}]}}}`;
    expect(text.length).toBeLessThan(1024 * 1024);
    const res = await fetch(`${apiUrl()}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${co.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: text,
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as any;
    expect(answer.result.isError).toBe(true);
    expect(JSON.parse(answer.result.content[0].text).error).toMatchObject({
      code: "invalid_request",
      message: "Request body exceeds the limit of 1048576 bytes",
      details: { max_bytes: 1048576 },
    });
    expect(await sql("select 1 from clients where company_id = $1", [co.companyId])).toEqual([]);
  });
});
