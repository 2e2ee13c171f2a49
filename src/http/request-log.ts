import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { RequestLogMessage } from "../platform/env";
import type { Logger } from "../platform/logger";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from "./idempotency-contract";
import { loggedTarget } from "./request-context";

/*
 * The request log's producer (docs/request-logs.md): each request a token made under /api/v1, each MCP
 * tool call and each settings-area action leaves one entry, sent to the request log queue after the
 * answer (waitUntil). Nothing here touches the database or waits on the queue: a request's round trips
 * and its answer are the same with or without the log, and a send that fails is counted and logged,
 * never the request's failure. Requests without a company (no valid token) have no owner and are not
 * logged here (the access log has them).
 */

/** An MCP tool call's request (src/mcp/server.ts marks it): the tool's name and its place in the MCP request. */
const toolCalls = new WeakMap<Request, { tool: string; seq: number }>();

/** Marks `request` as the `seq`-th tool call (from 1) of its MCP request, running `tool`. */
export function markToolCall(request: Request, tool: string, seq: number): Request {
  toolCalls.set(request, { tool, seq });
  return request;
}

/** Entries this isolate could not hand to the queue since it started (logged with each loss). */
let dropped = 0;

type Caller = Pick<RequestLogMessage, "company_id" | "token_id" | "user_id" | "oauth_grant_id" | "oauth_client_id">;

/**
 * The entry of the request `c` answered, started at `started` (ms), sent after the answer. The error
 * code is the thrown ApiError's; another error's answer (a database failure's 503) is read from its
 * body after the answer, from a copy.
 */
export function sendRequestLog(c: Context<AppEnv>, started: number, caller: Caller, operation: string | null): void {
  const queue = c.env.REQUEST_LOG_QUEUE;
  if (!queue) return;
  const res = c.res;
  const mark = toolCalls.get(c.req.raw);
  const entry: RequestLogMessage = {
    request_id: c.get("requestId"),
    seq: mark?.seq ?? 0,
    created_at: new Date(started).toISOString(),
    ...caller,
    method: c.req.method,
    path: loggedTarget(c.req.url),
    operation,
    tool: mark?.tool ?? null,
    status: res.status,
    error_code: c.error instanceof ApiError ? c.error.code : null,
    duration_ms: Date.now() - started,
    idempotency_key: c.req.header(IDEMPOTENCY_HEADER) ?? null,
    idempotent_replay: res.headers.get(REPLAYED_HEADER) === "true",
  };
  const copy = res.status >= 400 && entry.error_code === null && res.body ? res.clone() : undefined;
  const defer = c.get("defer");
  const logger = c.get("logger");
  if (!copy) {
    hold(entry, queue, defer, logger);
    return;
  }
  defer(errorCodeOf(copy).then((code) => hold({ ...entry, error_code: code }, queue, defer, logger)));
}

/** At most this many entries go in one send (a Queues batch holds up to 100 messages). */
const BATCH_MAX = 100;
/** An entry waits at most this long for others to go with it. */
const BATCH_WAIT_MS = 1000;

/**
 * Entries this isolate holds for its next send. A send per entry cost about 1.5 ms of workerd CPU per
 * request (bench:compare), more than the rest of a read; one `sendBatch` a second (or per 100 entries)
 * spreads that over every request of the second, as the limiter's reservations and the revocation set do
 * with Redis. The request that starts a batch keeps it alive with its `waitUntil` until it is sent.
 */
let held: RequestLogMessage[] = [];

function hold(entry: RequestLogMessage, queue: Queue<RequestLogMessage>, defer: (p: Promise<unknown>) => void, logger: Logger): void {
  held.push(entry);
  if (held.length >= BATCH_MAX) {
    defer(sendHeld(queue, logger));
    return;
  }
  if (held.length === 1) defer(new Promise((resolve) => setTimeout(resolve, BATCH_WAIT_MS)).then(() => sendHeld(queue, logger)));
}

async function sendHeld(queue: Queue<RequestLogMessage>, logger: Logger): Promise<void> {
  const batch = held;
  held = [];
  if (!batch.length) return;
  try {
    await queue.sendBatch(batch.map((body) => ({ body, contentType: "json" as const })));
  } catch (e) {
    dropped += batch.length;
    logger.error("request log entries dropped", { error: e, entries: batch.length, dropped_in_isolate: dropped });
  }
}

async function errorCodeOf(res: Response): Promise<string | null> {
  try {
    const code = ((await res.json()) as { error?: { code?: unknown } }).error?.code;
    return typeof code === "string" ? code.slice(0, 64) : null;
  } catch {
    return null;
  }
}

/** The API's request log middleware (src/app.ts): one entry per request that carried a valid token. */
export const requestLog = createMiddleware<AppEnv>(async (c, next) => {
  const started = Date.now();
  try {
    await next();
  } finally {
    const auth = c.get("auth");
    if (auth) {
      const operation = c.get("operation") ?? (c.req.path.endsWith("/mcp") ? "mcp" : null);
      // An OAuth access token's requests are its grant's (and the user who allowed it), not a token's.
      const { grant } = auth;
      const caller = grant
        ? { company_id: auth.companyId, token_id: null, user_id: grant.userId, oauth_grant_id: grant.id, oauth_client_id: grant.clientId }
        : { company_id: auth.companyId, token_id: auth.tokenId, user_id: null, oauth_grant_id: null, oauth_client_id: null };
      sendRequestLog(c, started, caller, operation);
    }
  }
});
