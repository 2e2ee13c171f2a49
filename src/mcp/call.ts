import { API_PREFIX } from "../http/api-prefix";
import { errorBody } from "../http/errors";
import { IDEMPOTENCY_HEADER } from "../http/idempotency-contract";
import { targetTooLong } from "../http/request-limits";
import { BODY_ARGUMENT, IDEMPOTENCY_ARGUMENT, type Operation } from "./catalog";

/** The MCP tool result (`CallToolResult`). */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A path or query value as text: strings as they are, other JSON values as JSON (which the route then refuses or reads). */
const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/**
 * The HTTP request a tool call stands for: path parameters in the path, query parameters in the query,
 * `idempotency_key` as the `Idempotency-Key` header, the other arguments as the JSON body, and the
 * caller's own `Authorization`. The route validates all of it as it validates any request, so a tool
 * call gets the operation's own answers. Returns the error result instead when the arguments make no
 * request: a path parameter missing (or one that would change the path), arguments an operation
 * without a body does not take, or an `idempotency_key` no header can carry.
 */
export function toolRequest(
  operation: Operation,
  args: Record<string, unknown>,
  origin: string,
  headers: Record<string, string>,
): Request | ToolResult {
  // Encoded, a value stays one segment, but an empty one or a dot segment would make another path (the URL parser resolves `..`).
  const badPath = operation.pathParams.flatMap((field) => {
    const value = args[field];
    if (value === undefined || value === null) return [{ field, message: "Required" }];
    return /^\.{0,2}$/.test(asText(value)) ? [{ field, message: "Must not be empty, '.' or '..'" }] : [];
  });
  const requestId = headers["x-request-id"];
  if (badPath.length) return invalidArguments(requestId, "Invalid request path", badPath);
  const taken = new Set([...operation.pathParams, ...operation.queryParams, ...(operation.idempotent ? [IDEMPOTENCY_ARGUMENT] : [])]);
  const rest = Object.keys(args).filter((name) => !taken.has(name) && args[name] !== undefined);
  if (operation.body === "none" && rest.length) {
    return invalidArguments(
      requestId,
      "Invalid tool arguments",
      rest.map((field) => ({ field, message: "Unknown field" })),
    );
  }

  // A value longer than a limit makes a part longer still, encoded: refused before it is encoded (linear, but megabytes of work).
  const textLength = (value: unknown): number =>
    value == null ? 0 : Array.isArray(value) ? value.reduce((n: number, v) => n + textLength(v), 0) : asText(value).length;
  const longest = (names: string[]) => Math.max(0, ...names.map((name) => textLength(args[name])));
  const overLong = targetTooLong(longest(operation.pathParams), longest(operation.queryParams));
  if (overLong) return toolError(errorBody(requestId, "invalid_request", overLong.message, overLong.details));
  const path = operation.path.replace(/\{([^{}]+)\}/g, (_, name: string) => encodeURIComponent(asText(args[name])));
  const query = new URLSearchParams();
  for (const name of operation.queryParams) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) query.append(name, asText(v));
  }
  const init: RequestInit & { headers: Record<string, string> } = {
    method: operation.method,
    headers: { ...headers, accept: "application/json" },
  };
  const key = args[IDEMPOTENCY_ARGUMENT];
  if (operation.idempotent && key !== undefined && key !== null) init.headers[IDEMPOTENCY_HEADER] = asText(key);
  if (operation.body !== "none") {
    const body = operation.body === "nested" ? (args[BODY_ARGUMENT] ?? {}) : Object.fromEntries(rest.map((name) => [name, args[name]]));
    init.body = JSON.stringify(body);
    init.headers["content-type"] = "application/json";
  }
  const search = query.size ? `?${query}` : "";
  // The URL limits of HTTP (414), checked before the request is made: a long argument costs its encoding only.
  const tooLong = targetTooLong(API_PREFIX.length + path.length, Math.max(search.length - 1, 0));
  if (tooLong) return toolError(errorBody(requestId, "invalid_request", tooLong.message, tooLong.details));
  try {
    return new Request(`${origin}${API_PREFIX}${path}${search}`, init);
  } catch {
    // Only a header can be refused here: `idempotency_key` with characters no HTTP header carries.
    return invalidArguments(requestId, "Invalid request headers", [
      { field: IDEMPOTENCY_ARGUMENT, message: "Must be 1 to 255 printable ASCII characters" },
    ]);
  }
}

/**
 * The operation's answer as a tool result: a success's JSON both as structured content (which the
 * tool's output schema describes) and as text; an error's envelope as text, with `isError`. A 429
 * also says in words when to retry (the envelope has it in `details.retry_after_seconds`).
 */
export async function toolResult(res: Response): Promise<ToolResult> {
  const text = await res.text();
  if (!res.ok) {
    const content: ToolResult["content"] = [{ type: "text", text }];
    const retryAfter = res.headers.get("retry-after");
    if (retryAfter) content.push({ type: "text", text: `Retry after ${retryAfter} seconds.` });
    return { isError: true, content };
  }
  if (!text) return { content: [{ type: "text", text: `Done (HTTP ${res.status}, no content).` }] };
  const answer = JSON.parse(text) as unknown;
  const structured = answer !== null && typeof answer === "object" && !Array.isArray(answer);
  return { content: [{ type: "text", text }], ...(structured ? { structuredContent: answer as Record<string, unknown> } : {}) };
}

/** An error the arguments caused before any request, in the API's envelope. */
function invalidArguments(requestId: string, message: string, details: { field: string; message: string }[]): ToolResult {
  return toolError(errorBody(requestId, "invalid_request", message, details));
}

const toolError = (envelope: ReturnType<typeof errorBody>): ToolResult => ({
  isError: true,
  content: [{ type: "text", text: JSON.stringify(envelope) }],
});
