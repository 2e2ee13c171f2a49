import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * Answers one MCP request with `server` over a stateless Streamable HTTP transport with JSON answers
 * (no session: a server and transport per request), then closes the server. `message`: the message,
 * already read (the request's body is then not read).
 */
export async function answerStateless(server: Server, request: Request, message?: JSONRPCMessage): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, message === undefined ? undefined : { parsedBody: message });
  } finally {
    await server.close();
  }
}
