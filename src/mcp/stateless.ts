import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * Answers one MCP request with `server` over a stateless Streamable HTTP transport with JSON answers
 * (no session: a server and transport per request, left to the collector). `message`: the message,
 * already read (the request's body is then not read).
 *
 * Not closed: with JSON answers, the answer comes once the handlers are done, so nothing is left to
 * stop, and closing builds an error (`Connection closed`, with its stack) for the handlers it would tell.
 */
export async function answerStateless(server: Server, request: Request, message?: JSONRPCMessage): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(request, message === undefined ? undefined : { parsedBody: message });
}
