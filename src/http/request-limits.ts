import { createLogger } from "../platform/logger";
import { errorBody } from "./errors";
import { discardBody } from "./json-body";
import { requestIdFor } from "./request-context";

/**
 * The longest path and the longest query string the API takes, in bytes as sent (percent-encoded, so
 * one character is one byte): 8 KiB each, as common proxies and servers allow for a request line.
 * Longer ones are answered 414 before anything else reads them (docs/api-conventions.md#request-size).
 */
export const MAX_PATH_BYTES = 8192;
export const MAX_QUERY_BYTES = 8192;

/** Why a request target is too long (the 414's message and details), or undefined when it is within the limits. */
export function targetTooLong(pathBytes: number, queryBytes: number) {
  const part =
    pathBytes > MAX_PATH_BYTES
      ? { name: "path", max_bytes: MAX_PATH_BYTES }
      : queryBytes > MAX_QUERY_BYTES
        ? { name: "query", max_bytes: MAX_QUERY_BYTES }
        : undefined;
  if (!part) return undefined;
  // The length is not repeated: an MCP tool call refuses a value longer than the limit without encoding it whole.
  const message = `The request ${part.name === "path" ? "path" : "query string"} is longer than ${part.max_bytes} bytes`;
  return { message, details: { part: part.name, max_bytes: part.max_bytes } };
}

/** The path's and the query string's lengths in an absolute URL, found by position (nothing parsed). */
export function targetLengths(url: string): { pathBytes: number; queryBytes: number } {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start < 0) return { pathBytes: 0, queryBytes: 0 };
  const hash = url.indexOf("#", start);
  const end = hash < 0 ? url.length : hash;
  const query = url.indexOf("?", start);
  if (query < 0 || query > end) return { pathBytes: end - start, queryBytes: 0 };
  return { pathBytes: query - start, queryBytes: end - query - 1 };
}

/**
 * The Worker's first check of every request, before the app routes it: a path or query string over
 * its limit is answered 414 with the error envelope (the caller's `X-Request-Id` kept as any answer
 * keeps it), and a one-line log entry with the lengths only. Its work is a few lookups in the URL
 * string, whatever the length. Undefined for a request within the limits.
 */
export function refuseLongTarget(request: Request): Promise<Response> | undefined {
  const { pathBytes, queryBytes } = targetLengths(request.url);
  const tooLong = targetTooLong(pathBytes, queryBytes);
  if (!tooLong) return undefined;
  const requestId = requestIdFor(request.headers.get("x-request-id"));
  createLogger({ request_id: requestId }).info("request", {
    method: request.method,
    status: 414,
    path_bytes: pathBytes,
    query_bytes: queryBytes,
  });
  const body = JSON.stringify(errorBody(requestId, "invalid_request", tooLong.message, tooLong.details));
  // As every answer given before the body was read: the body is drained first, so the connection stays usable.
  return discardBody(request).then(
    () => new Response(body, { status: 414, headers: { "Content-Type": "application/json", "X-Request-Id": requestId } }),
  );
}
