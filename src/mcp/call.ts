import { API_PREFIX } from "../http/api-prefix";
import { errorBody } from "../http/errors";
import { RawJson, stringifyWithRaw } from "../http/exact-json";
import { IDEMPOTENCY_HEADER } from "../http/idempotency-contract";
import { wellFormed } from "../http/json-body";
import { targetTooLong } from "../http/request-limits";
import { BODY_ARGUMENT, IDEMPOTENCY_ARGUMENT, type Operation } from "./catalog";
import { FRAME_BYTES, MCP_ANSWER_MAX_BYTES, utf8Length } from "./limits";

/** The MCP tool result (`CallToolResult`). */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A path, query or header value as the text HTTP carries it: a string as it is, a number as the caller
 * wrote it (`RawJson` keeps digits JSON.parse would change), a boolean as JSON. Undefined for an
 * object or a list, which no such text stands for: refused, never turned into text.
 */
function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return JSON.stringify(value);
  if (value instanceof RawJson) return value.text;
  return undefined;
}

type Problem = { field: string; message: string };

/** `value` as the texts of a path, query or header value (`list`: a list of them may repeat it), or why not. */
function textsOf(value: unknown, list: boolean): string[] | string {
  const texts = (list && Array.isArray(value) ? value : [value]).map(asText);
  if (texts.some((t) => t === undefined))
    return list ? "Must be a string, a number, a boolean or a list of them" : "Must be a string, a number or a boolean";
  if (texts.some((t) => !wellFormed(t!))) return "Must be valid Unicode: a lone surrogate (such as \\ud800) cannot be sent";
  return texts as string[];
}

/**
 * The HTTP request a tool call stands for: path parameters in the path, query parameters in the query,
 * `idempotency_key` as the `Idempotency-Key` header, the other arguments as the JSON body (numbers as
 * the caller wrote them), and the caller's own `Authorization`. The route validates all of it as it
 * validates any request, so a tool call gets the operation's own answers. Returns the error result
 * instead when the arguments make no request: a path parameter missing (or one that would change the
 * path), a path, query or key value that is not text, a number or a boolean (or is not Unicode),
 * arguments an operation without a body does not take, or an `idempotency_key` no header can carry.
 */
export function toolRequest(
  operation: Operation,
  args: Record<string, unknown>,
  origin: string,
  headers: Record<string, string>,
): Request | ToolResult {
  const requestId = headers["x-request-id"];
  const texts = new Map<string, string[]>();
  const read = (field: string, list = false): Problem[] => {
    const value = args[field];
    if (value === undefined || value === null) return [];
    const got = textsOf(value, list);
    if (typeof got === "string") return [{ field, message: got }];
    texts.set(field, got);
    return [];
  };
  // Encoded, a value stays one segment, but an empty one or a dot segment would make another path (the URL parser resolves `..`).
  const badPath = operation.pathParams.flatMap((field) => {
    const problems = read(field);
    if (problems.length) return problems;
    const text = texts.get(field)?.[0];
    if (text === undefined) return [{ field, message: "Required" }];
    return /^\.{0,2}$/.test(text) ? [{ field, message: "Must not be empty, '.' or '..'" }] : [];
  });
  if (badPath.length) return invalidArguments(requestId, "Invalid request path", badPath);
  const taken = new Set([...operation.pathParams, ...operation.queryParams, ...(operation.idempotent ? [IDEMPOTENCY_ARGUMENT] : [])]);
  const rest = Object.keys(args).filter((name) => !taken.has(name) && args[name] !== undefined);
  const badArguments = [
    ...operation.queryParams.flatMap((name) => read(name, operation.listParams.includes(name))),
    ...(operation.body === "none" ? rest.map((field) => ({ field, message: "Unknown field" })) : []),
  ];
  if (badArguments.length) return invalidArguments(requestId, "Invalid tool arguments", badArguments);

  // A value longer than a limit makes a part longer still, encoded: refused before it is encoded (linear, but megabytes of work).
  const longest = (names: string[]) => Math.max(0, ...names.map((name) => (texts.get(name) ?? []).reduce((n, v) => n + v.length, 0)));
  const overLong = targetTooLong(longest(operation.pathParams), longest(operation.queryParams));
  if (overLong) return toolError(errorBody(requestId, "invalid_request", overLong.message, overLong.details));
  const path = operation.path.replace(/\{([^{}]+)\}/g, (_, name: string) => encodeURIComponent(texts.get(name)![0]));
  const query = new URLSearchParams();
  for (const name of operation.queryParams) for (const v of texts.get(name) ?? []) query.append(name, v);
  const init: RequestInit & { headers: Record<string, string> } = {
    method: operation.method,
    headers: { ...headers, accept: "application/json" },
  };
  const badKey = () =>
    invalidArguments(requestId, "Invalid request headers", [
      { field: IDEMPOTENCY_ARGUMENT, message: "Must be 1 to 255 printable ASCII characters" },
    ]);
  if (operation.idempotent && read(IDEMPOTENCY_ARGUMENT).length) return badKey();
  const key = texts.get(IDEMPOTENCY_ARGUMENT)?.[0];
  if (key !== undefined) init.headers[IDEMPOTENCY_HEADER] = key;
  if (operation.body !== "none") {
    const body = operation.body === "nested" ? (args[BODY_ARGUMENT] ?? {}) : Object.fromEntries(rest.map((name) => [name, args[name]]));
    try {
      init.body = stringifyWithRaw(body);
    } catch {
      // Only nesting deep enough to overflow the stack: thousands of levels, where the route refuses more than 64.
      return invalidArguments(requestId, "Invalid tool arguments", [{ field: BODY_ARGUMENT, message: "Nests too deeply" }]);
    }
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
    return badKey();
  }
}

/**
 * The operation's answer as a tool result: a success's JSON both as structured content (which the
 * tool's output schema describes) and as text; an error's envelope as text, with `isError`. A 429
 * also says in words when to retry (the envelope has it in `details.retry_after_seconds`). The result
 * fits in `room` bytes (what is left of MCP_ANSWER_MAX_BYTES): an answer too large to repeat as text is
 * sent once, as structured content; one too large even once is the error `answerTooLarge`, which says
 * whether the call changed data (`changes`: the tool's operation writes).
 */
export async function toolResult(res: Response, requestId: string, changes: boolean, room = MCP_ANSWER_MAX_BYTES): Promise<ToolResult> {
  const text = await res.text();
  const bytes = utf8Length(text);
  if (bytes + FRAME_BYTES > room) return answerTooLarge(requestId, bytes, room, changes && res.ok ? res.status : undefined);
  if (!res.ok) {
    const content: ToolResult["content"] = [{ type: "text", text }];
    const retryAfter = res.headers.get("retry-after");
    if (retryAfter) content.push({ type: "text", text: `Retry after ${retryAfter} seconds.` });
    return { isError: true, content };
  }
  if (!text) return { content: [{ type: "text", text: `Done (HTTP ${res.status}, no content).` }] };
  const answer = JSON.parse(text) as unknown;
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) return { content: [{ type: "text", text }] };
  // Twice the text, each quote escaped once more in the text copy: at most three times its bytes.
  const once = 3 * bytes + FRAME_BYTES > room;
  const copy = once ? `The answer is the structured content only (${bytes} bytes): too large to repeat as text.` : text;
  return { content: [{ type: "text", text: copy }], structuredContent: answer as Record<string, unknown> };
}

/**
 * The error result for an answer (`bytes`) that does not fit in the `room` left of the MCP answer.
 * `changed`: the HTTP status of a write that succeeded, whose changes stay made (only its answer is
 * not sent).
 */
export function answerTooLarge(requestId: string, bytes: number, room: number, changed?: number): ToolResult {
  const limit = `larger than the room left in this MCP answer (${room} bytes; an MCP answer, a batch's whole answer included, is at most ${MCP_ANSWER_MAX_BYTES} bytes)`;
  const message =
    changed === undefined
      ? `The answer (${bytes} bytes) is ${limit}; nothing was changed: ask for less (a smaller per_page), or call it alone`
      : `The call was carried out (HTTP ${changed}) and its changes are made, but its answer (${bytes} bytes) is ${limit}: read what it changed with the reading tools`;
  const details = { answer_bytes: bytes, max_answer_bytes: room, ...(changed === undefined ? {} : { status: changed }) };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(errorBody(requestId, "invalid_request", message, details)) }] };
}

/** An error the arguments caused before any request, in the API's envelope. */
function invalidArguments(requestId: string, message: string, details: { field: string; message: string }[]): ToolResult {
  return toolError(errorBody(requestId, "invalid_request", message, details));
}

const toolError = (envelope: ReturnType<typeof errorBody>): ToolResult => ({
  isError: true,
  content: [{ type: "text", text: JSON.stringify(envelope) }],
});
