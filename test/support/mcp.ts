import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { apiUrl } from "./api";
import type { Operation } from "./operations";

/**
 * The official SDK's client, connected to the Worker's MCP endpoint with this token (initialize done).
 * With `requestId`, every MCP request carries it as X-Request-Id, so tool errors (whose envelope carries
 * the MCP request's id) compare whole with each other and with REST answers sent with the same id.
 */
export async function mcpClient(token: string, baseUrl: string = apiUrl(), requestId?: string) {
  const client = new Client({ name: "crm-api-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...(requestId ? { "x-request-id": requestId } : {}) } },
  });
  await client.connect(transport);
  return client;
}

export type McpClient = Awaited<ReturnType<typeof mcpClient>>;

/** A tool call's outcome: the structured answer, or the error envelope parsed from the text of an error result. */
export async function callTool(client: McpClient, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  const envelope = result.isError ? JSON.parse(content[0].text) : undefined;
  return {
    result,
    isError: Boolean(result.isError),
    /** The answer (structured content) of a success. */
    body: result.structuredContent as any,
    /** The `{ error: { code, message, details, request_id } }` of an error. */
    error: envelope?.error as { code: string; message: string; details: any; request_id: string } | undefined,
    text: content.map((c) => c.text),
  };
}

/** Asserts a successful call and returns its answer, which its text content repeats. */
export async function toolAnswer(client: McpClient, name: string, args: Record<string, unknown> = {}) {
  const call = await callTool(client, name, args);
  expect(call.isError, `${name}: ${call.text.join(" ")}`).toBe(false);
  expect(JSON.parse(call.text[0])).toEqual(call.body);
  return call.body;
}

/**
 * The worked session of docs/mcp.md, as an assistant would run it: find the client by name, create an
 * order for it with two line items, read the order's total back. Returns what it found and made.
 */
export async function orderWithTwoItems(client: McpClient, clientName: string) {
  const found = await toolAnswer(client, "list_clients", { q: clientName });
  const customer = found.data[0];
  const { project } = await toolAnswer(client, "create_order", { title: "Team hoodies", client_id: customer.id });
  await toolAnswer(client, "create_order_item", {
    id: project.id,
    title: "Hoodie, 2-color front print",
    quantity: 24,
    unit_price: "32.50",
  });
  await toolAnswer(client, "create_order_item", { id: project.id, title: "Screen setup", quantity: 2, unit_price: "25.00" });
  const order = await toolAnswer(client, "get_order", { id: project.id });
  return { customer, orderId: project.id as number, order };
}

/**
 * POSTs one MCP request as the Streamable HTTP transport does, without the SDK's client: `body` as JSON,
 * or as raw text when a string (numbers as written, malformed messages).
 */
export const postMcp = (token: string | undefined, body: unknown, headers: Record<string, string> = {}, baseUrl: string = apiUrl()) =>
  fetch(`${baseUrl}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });

/** A tool's arguments for an operation's URL (path and query, as `populated` makes them) and body. */
export function toolArguments({ path }: Operation, url: string, body?: unknown): Record<string, unknown> {
  const [pathname, search = ""] = url.split("?");
  const names: string[] = [];
  const pattern = new RegExp(
    `^${path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      names.push(name);
      return "([^/]+)";
    })}$`,
  );
  const values = pattern.exec(pathname)!.slice(1).map(decodeURIComponent);
  const args: Record<string, unknown> = {};
  names.forEach((name, i) => {
    args[name] = /^\d+$/.test(values[i]) ? Number(values[i]) : values[i];
  });
  for (const [name, value] of new URLSearchParams(search)) args[name] = value;
  return { ...args, ...(body as object) };
}
