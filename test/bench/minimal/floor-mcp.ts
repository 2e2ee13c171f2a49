import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { answerStateless } from "../../../src/mcp/stateless";

/**
 * The MCP endpoint's floor (`npm run bench:cpu`): a fresh isolate's first `tools/list` answered by the
 * MCP SDK alone, as src/mcp/server.ts uses it (a server and a stateless Streamable HTTP transport with
 * JSON answers per request, src/mcp/stateless.ts; no JSON Schema validator) and nothing else of ours: no
 * token, database, tool catalog (an empty list) or log line. What loading and running the SDK costs a fresh isolate.
 * A `tools/call` is answered with a tool error, as the API answers an argument it refuses: the warm floor
 * of bench:cpu's refused MCP calls (the SDK alone reading the same message and answering it).
 */
const NO_VALIDATION: jsonSchemaValidator = {
  getValidator() {
    throw new Error("validates no JSON Schema");
  },
};

export default {
  async fetch(request: Request) {
    const server = new Server({ name: "floor", version: "1.0.0" }, { capabilities: { tools: {} }, jsonSchemaValidator: NO_VALIDATION });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
    server.setRequestHandler(CallToolRequestSchema, async () => ({ isError: true, content: [{ type: "text", text: "refused" }] }));
    return answerStateless(server, request);
  },
};
