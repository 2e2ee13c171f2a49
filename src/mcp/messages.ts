import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { doubleKeepsValue, inexactNumber, RawJson } from "../http/exact-json";
import { MCP_BATCH_MAX } from "./limits";

/*
 * The JSON-RPC messages of one MCP request, read and checked before the SDK sees any of them, one at a
 * time: the SDK's transport would answer a whole batch for one bad message, answer -32603 (an internal
 * error) for params its schemas refuse, keep one answer for two requests with one id, and read numbers
 * as doubles (a tool argument `1e-400` would reach the operation as 0).
 */

/** A message to run, or the error it is answered with instead (and the HTTP status for it sent alone). */
export type Checked = { run: JSONRPCMessage } | { refused: JSONRPCErrorResponse; status: 400 | 200 };

/** The request's messages: `batch` when the body is a JSON array. */
export type Incoming = { batch: boolean; messages: Checked[] } | { refused: JSONRPCErrorResponse };

/** The params of the requests the server handles, as the SDK's handlers read them. */
const PARAMS: Record<
  string,
  { safeParse(value: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }
> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
};

export const jsonRpcError = (id: RequestId | null, code: number, message: string): JSONRPCErrorResponse =>
  // The specification answers `id: null` when the id could not be read; the SDK's type has no null.
  ({ jsonrpc: "2.0", id: id as RequestId, error: { code, message } });

/**
 * Reads the body's messages. Undefined when the body is not JSON (the transport answers that, -32700).
 * Numbers JSON.parse would change (`1e-400`, 20 digits) are read as `RawJson` with the digits sent: a
 * tool passes them on to its operation as written, where the route refuses them as it does over HTTP;
 * anywhere else (an id, a cursor) no schema takes them, so the message is refused.
 */
export function readMessages(text: string): Incoming | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (inexactNumber(text)) {
    try {
      body = JSON.parse(text, exactNumbers);
    } catch {
      // The reviver recurses: nesting thousands deep overflows the stack.
      return { refused: jsonRpcError(null, ErrorCode.InvalidRequest, "Invalid Request: JSON nests too deeply") };
    }
  }
  if (!Array.isArray(body)) return { batch: false, messages: [check(body, false)] };
  if (body.length === 0) return { refused: jsonRpcError(null, ErrorCode.InvalidRequest, "Invalid Request: an empty batch") };
  if (body.length > MCP_BATCH_MAX)
    return { refused: jsonRpcError(null, ErrorCode.InvalidRequest, `Invalid Request: a batch may hold at most ${MCP_BATCH_MAX} messages`) };
  const messages = body.map((m) => check(m, true));
  // Two requests with one id cannot both be answered: neither runs.
  const ids = messages.flatMap((c) => ("run" in c && isJSONRPCRequest(c.run) ? [c.run.id] : []));
  const twice = new Set(ids.filter((id, i) => ids.indexOf(id) !== i));
  return {
    batch: true,
    messages: messages.map((c) =>
      "run" in c && isJSONRPCRequest(c.run) && twice.has(c.run.id)
        ? refuse(c.run.id, ErrorCode.InvalidRequest, "Invalid Request: another request of the batch has this id; neither was run")
        : c,
    ),
  };
}

/** JSON.parse's reviver, given each value's source text (ES2025): numbers a double would change, as sent. */
function exactNumbers(_key: string, value: unknown, context?: { source?: string }) {
  return typeof value === "number" && context?.source !== undefined && !doubleKeepsValue(context.source)
    ? new RawJson(context.source)
    : value;
}

function refuse(id: RequestId | null, code: number, message: string): Checked {
  return { refused: jsonRpcError(id, code, message), status: code === ErrorCode.InvalidRequest ? 400 : 200 };
}

/** A message as JSON-RPC and MCP define it, or its error: -32600 for what is not a message, -32602 for params the method does not take. */
function check(message: unknown, inBatch: boolean): Checked {
  const m = (message ?? {}) as Record<string, unknown>;
  const id = typeof m.id === "string" || Number.isSafeInteger(m.id) ? (m.id as RequestId) : null;
  const request = typeof m === "object" && m.jsonrpc === "2.0" && typeof m.method === "string" && id !== null;
  if (!JSONRPCMessageSchema.safeParse(message).success) {
    const params = m.params;
    return request && params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))
      ? refuse(id, ErrorCode.InvalidParams, `Invalid params for ${String(m.method)}: params must be an object`)
      : refuse(id, ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message as MCP sends them");
  }
  if (!request) return { run: message as JSONRPCMessage };
  const method = m.method as string;
  if (method === "initialize" && inBatch)
    return refuse(id, ErrorCode.InvalidRequest, "Invalid Request: initialize must not be part of a batch");
  const parsed = PARAMS[method]?.safeParse(message);
  if (parsed && !parsed.success) {
    const issues = parsed.error?.issues.map((i) => `${i.path.map(String).join(".") || "params"}: ${i.message}`).join("; ");
    return refuse(id, ErrorCode.InvalidParams, `Invalid params for ${method}: ${issues}`);
  }
  return { run: message as JSONRPCMessage };
}
