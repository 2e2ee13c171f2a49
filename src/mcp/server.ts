import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { Context } from "hono";
import type { AppEnv } from "../http/context";
import type { Bindings } from "../platform/env";
import { toolRequest, toolResult } from "./call";
import type { Tool } from "./catalog";
import { answerStateless } from "./stateless";

/** The app's own fetch: a tool's request goes through it like any request to the API. */
export type Dispatch = (request: Request, env: Bindings, ctx: ExecutionCtx | undefined) => Response | Promise<Response>;
type ExecutionCtx = Context<AppEnv>["executionCtx"];

const SERVER_INFO = { name: "crm-api", title: "CRM integration API", version: "1.0.0" };

/** Sent to the client on `initialize`: how the tools fit together, for the assistant. */
const INSTRUCTIONS = [
  "The tools are the operations of an apparel-decoration shop's CRM API (screen printing, embroidery), acting for the shop (company) of the token you connected with; they see and change that company's data only.",
  "Clients are the shop's customers. An order (a project with its default invoice) belongs to a client (`client_id`); an order's line items, payments and artworks are addressed by the order's `id` and their own `item_id`, `payment_id` or `artwork_id`. An order's status (`status_id`) and its invoice's tax (`tax_id`) are ids from list_statuses and list_taxes. Find ids with the list and search tools before reading or changing a row. Money is a decimal string such as \"12.50\". get_me says which shop the token is for.",
  'A failed call is a tool result with isError and the API\'s error envelope `{ "error": { "code", "message", "details", "request_id" } }`: `invalid_request` names each offending argument in `details` (correct it and call again); `not_found` is also the answer for another company\'s id; `forbidden` means the token may only read (it lists only the reading tools); `rate_limited` means 300 calls a minute per token were used: wait `details.retry_after_seconds`. Descriptions quote the API\'s HTTP statuses: 400 is invalid_request, 404 not_found, 409 conflict or integration_unavailable.',
  "Changes reach the shop's webhooks and accounting like any API change. Tools that create take `idempotency_key`: use a new UUID per intended change and the same one to retry it.",
].join("\n\n");

/** The server validates no JSON Schema (it asks the client nothing); the SDK's ajv is left out of the bundle. */
const NO_VALIDATION: jsonSchemaValidator = {
  getValidator() {
    throw new Error("the MCP server validates no JSON Schema");
  },
};

let catalog: Map<string, Tool> | undefined;

/**
 * The tools, derived at build time from the OpenAPI document the app serves (tools/cli/openapi-build.ts,
 * with src/mcp/catalog.ts); read once per isolate.
 */
async function tools(): Promise<Map<string, Tool>> {
  catalog ??= new Map(JSON.parse((await import("crm-build:openapi")).toolsText) as [string, Tool][]);
  return catalog;
}

/**
 * Answers one MCP request (`request`: the one `c` serves, its body read), stateless Streamable HTTP
 * with JSON answers: a server and transport of the SDK per request, for the token this request carries
 * (`c.get("auth")`, checked before). A tool call runs its operation as a request through the app
 * (`dispatch`), with the caller's `Authorization`, so the route's validation, tenancy, scope check,
 * rate limit, idempotency and events apply as they do over HTTP.
 */
export async function serveMcp(c: Context<AppEnv>, request: Request, dispatch: Dispatch): Promise<Response> {
  let ctx: ExecutionCtx | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    // Not in a Worker: there is none.
  }
  const run = (request: Request) => dispatch(request, c.env, ctx);
  const origin = new URL(c.req.url).origin;
  const { scope } = c.get("auth");
  // The inner request's log line carries this request's id.
  const headers = { authorization: c.req.header("authorization")!, "x-request-id": c.get("requestId") };

  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_VALIDATION });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const all = [...(await tools()).values()];
    // A read token lists what it may call: the operations that need only the read scope.
    return { tools: all.filter((t) => scope === "write" || t.operation.scope === "read").map((t) => t.definition) };
  });
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = (await tools()).get(params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    const operation = toolRequest(tool.operation, params.arguments ?? {}, origin, headers);
    return operation instanceof Request ? toolResult(await run(operation)) : operation;
  });
  return answerStateless(server, request);
}
