import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, isJSONRPCRequest, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { Context } from "hono";
import { countRequests, scopeAllows } from "../http/auth";
import type { AppEnv } from "../http/context";
import { ApiError, errorBody } from "../http/errors";
import { markToolCall } from "../http/request-log";
import type { Bindings } from "../platform/env";
import { type ToolResult, toolRequest, toolResult } from "./call";
import type { Tool } from "./catalog";
import { MCP_ANSWER_MAX_BYTES, utf8Length } from "./limits";
import { type Checked, jsonRpcError, readMessages } from "./messages";
import { answerStateless } from "./stateless";

/** The app's own fetch: a tool's request goes through it like any request to the API. */
export type Dispatch = (request: Request, env: Bindings, ctx: ExecutionCtx | undefined) => Response | Promise<Response>;
type ExecutionCtx = Context<AppEnv>["executionCtx"];

const SERVER_INFO = { name: "crm-api", title: "CRM integration API", version: "1.0.0" };

/** Sent to the client on `initialize`: how the tools fit together, for the assistant. */
const INSTRUCTIONS = [
  "The tools are the operations of an apparel-decoration shop's CRM API (screen printing, embroidery), acting for the shop (company) of the token you connected with; they see and change that company's data only.",
  "Clients are the shop's customers. An order (a project with its default invoice) belongs to a client (`client_id`); an order's line items, payments and artworks are addressed by the order's `id` and their own `item_id`, `payment_id` or `artwork_id`; a line item's decorations (what is printed or embroidered where: get_order shows them on each item) by its `item_id` and their `decoration_id`. An order's status (`status_id`) and its invoice's tax (`tax_id`) are ids from list_statuses and list_taxes. Find ids with the list and search tools before reading or changing a row. Money is a decimal string such as \"12.50\". get_me says which shop the token is for.",
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
 * with JSON answers, for the token this request carries (`c.get("auth")`, checked before). The
 * messages are read and checked here (`readMessages`), counted against the rate limit, and run one
 * after another, each by an SDK server and transport of its own. A tool call runs its operation as a
 * request through the app (`dispatch`), with the caller's `Authorization`, so the route's validation,
 * tenancy, scope check, rate limit, idempotency and events apply as they do over HTTP.
 *
 * One at a time, every message's answer is known before the next runs: the whole answer stays under
 * MCP_ANSWER_MAX_BYTES (a message that would take it over is answered with an error, and the later
 * ones do not run), and `notifications/cancelled` finds nothing running to cancel, so no call is
 * stopped between its change and its answer and no batch waits for an answer that never comes.
 */
export async function serveMcp(c: Context<AppEnv>, text: string, dispatch: Dispatch): Promise<Response> {
  const request = c.req.raw;
  let ctx: ExecutionCtx | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    // Not in a Worker: there is none.
  }
  const run = (request: Request) => dispatch(request, c.env, ctx);
  const origin = new URL(c.req.url).origin;
  const { scope } = c.get("auth");
  const requestId = c.get("requestId");
  // The inner request's log line carries this request's id.
  const headers = { authorization: c.req.header("authorization")!, "x-request-id": requestId };

  const incoming = readMessages(text);
  // Every message counts as a request would, but a tool call: the operation it runs counts it (one that runs none counts itself, below).
  const uncounted = incoming && "messages" in incoming ? incoming.messages.filter(runsTool).length : 0;
  const messages = incoming && "messages" in incoming ? incoming.messages.length : 1;
  if (messages > uncounted) await countRequests(c, messages - uncounted);

  /** A call refused before it runs an operation counts as the request it would have been; the limiter's refusal comes first. */
  const countAlone = async (): Promise<ToolResult | undefined> => {
    try {
      await countRequests(c, 1);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return toolResult(
        new Response(JSON.stringify(errorBody(requestId, e.code, e.message, e.details)), { status: e.status, headers: e.headers }),
        requestId,
        false,
      );
    }
  };
  // Tool calls run so far: each one's place in this MCP request (the request log's `seq`).
  let toolCalls = 0;
  // What the answer of the message being run may take, set before each.
  let room = MCP_ANSWER_MAX_BYTES;
  const newServer = () => {
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_VALIDATION });
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      const all = [...(await tools()).values()];
      // A token lists only what its scope may call (calling another tool anyway is the operation's 403 `forbidden`).
      return { tools: all.filter((t) => scopeAllows(scope, t.operation.scope)).map((t) => t.definition) };
    });
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      const tool = (await tools()).get(params.name);
      if (!tool) {
        await countAlone();
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
      }
      const operation = toolRequest(tool.operation, params.arguments ?? {}, origin, headers);
      if (!(operation instanceof Request)) return (await countAlone()) ?? operation;
      // Its own request log entry, naming the tool (src/http/request-log.ts).
      return toolResult(await run(markToolCall(operation, params.name, ++toolCalls)), requestId, tool.operation.method !== "GET", room);
    });
    return server;
  };

  // Not JSON: the transport answers it (-32700, or 406 and 415 for the headers).
  if (!incoming)
    return answerStateless(newServer(), new Request(request.url, { method: request.method, headers: request.headers, body: text }));
  if ("refused" in incoming) return json(JSON.stringify(incoming.refused), 400);
  const bare = new Request(request.url, { method: request.method, headers: request.headers });
  const answers: string[] = [];
  // Each later message's shortest answer (an error echoing its id) is kept room for.
  const least = incoming.messages.map((m) => ERROR_ANSWER_BYTES + utf8Length(JSON.stringify(idOf(m) ?? null)));
  let used = 2 + incoming.messages.length;
  let status = 200;
  let full = false;
  for (const [i, checked] of incoming.messages.entries()) {
    const reserve = least.slice(i + 1).reduce((a, b) => a + b, 0);
    let answer: string | undefined;
    if ("refused" in checked) {
      answer = JSON.stringify(checked.refused);
      status = checked.status;
    } else if (full) {
      if (isJSONRPCRequest(checked.run)) answer = JSON.stringify(jsonRpcError(checked.run.id, ErrorCode.InvalidRequest, NOT_RUN));
    } else {
      room = MCP_ANSWER_MAX_BYTES - used - reserve;
      const res = await answerStateless(newServer(), bare, checked.run);
      // 406, 415, 400 for the protocol version: the headers', the same for every message, before any ran.
      if (res.status !== 200 && res.status !== 202) return res;
      if (res.status === 200) answer = await res.text();
      if (answer !== undefined && used + utf8Length(answer) + reserve > MCP_ANSWER_MAX_BYTES) {
        full = true;
        answer = JSON.stringify(jsonRpcError(idOf(checked)!, ErrorCode.InvalidRequest, NOT_RUN));
      }
    }
    if (answer === undefined) continue;
    used += utf8Length(answer);
    answers.push(answer);
  }
  if (!answers.length) return new Response(null, { status: 202 });
  return incoming.batch ? json(`[${answers.join(",")}]`, 200) : json(answers[0], status);
}

/** The room kept for an error answer besides its id. */
const ERROR_ANSWER_BYTES = 400;
const NOT_RUN = `Invalid Request: not run, since its answer would take this request's answer over ${MCP_ANSWER_MAX_BYTES} bytes: send it in another request`;

const json = (body: string, status: number) => new Response(body, { status, headers: { "content-type": "application/json" } });
const runsTool = (m: Checked) => "run" in m && isJSONRPCRequest(m.run) && m.run.method === "tools/call";
const idOf = (m: Checked) => ("refused" in m ? m.refused.id : isJSONRPCRequest(m.run) ? m.run.id : undefined);
