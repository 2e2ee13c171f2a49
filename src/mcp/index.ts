import type { Context } from "hono";
import { identify } from "../http/auth";
import type { AppEnv } from "../http/context";
import { readBody } from "../http/json-body";
import { createRouter } from "../http/openapi";
import type { Dispatch } from "./server";

/**
 * The remote MCP endpoint, `POST /api/v1/mcp` (docs/mcp.md): the Model Context Protocol's Streamable
 * HTTP transport, stateless, through the official SDK. GET (a server-sent event stream) and DELETE (end
 * a session) are answered 405, as the transport allows for a server without either; so is any other
 * method. Not in the OpenAPI document: one JSON-RPC endpoint, whose tools are the document's operations.
 *
 * The body is read as any request body is (size limit, deadline), then the token is looked up (401
 * with `WWW-Authenticate` before any message is handled). The rate limiter does not count the MCP
 * request itself: each tools/call is counted once, by the operation it runs with the same token, and
 * the other messages (initialize, tools/list, notifications) read no data.
 *
 * This module is loaded on the first request under /mcp; the SDK and the tools (`./server`) on the
 * first MCP request.
 */
export function createMcpApi(dispatch: Dispatch) {
  const api = createRouter();
  const serve = async (c: Context<AppEnv>) => (await import("./server")).serveMcp(c, await bodyText(c), dispatch);
  api.post("/mcp", readBody(), identify, serve);
  // The same endpoint for static tokens: its 401 does not point to OAuth (docs/mcp.md#which-url).
  api.post("/mcp/token-only", readBody(), identify, serve);
  return api;
}

/**
 * The body `readBody` read, as text (once: the transport is handed what serveMcp parsed). The bytes are
 * let go at once: a message is up to 1 MiB, and the engine collects sooner what nothing holds.
 */
async function bodyText(c: Context<AppEnv>): Promise<string> {
  const cache = c.req.bodyCache as Record<string, unknown>;
  const bytes = await (cache.arrayBuffer as Promise<ArrayBuffer>);
  delete cache.arrayBuffer;
  return new TextDecoder().decode(bytes);
}
