import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { expect, inject } from "vitest";
import * as schema from "../../src/db/schema";
import type { Db } from "../../src/platform/db";
import { createCompany, createToken, importFile } from "../../tools/ops/commands";

export const apiUrl = () => inject("apiUrl");

/**
 * A `CF-Connecting-IP` no other test sends: what a client is throttled by (sign-in, OAuth registration,
 * approval answers), so one test's requests never count against another's. Not an address (the Worker
 * keys its limits by the header's text), so it cannot collide with one a test chose.
 */
export const freshClientAddress = () => `client-${process.pid}-${randomBytes(6).toString("hex")}`;

let pool: pg.Pool | undefined;
function testPool() {
  if (!pool) {
    pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 4 });
    // An idle connection ended by the server (a test that stops PostgreSQL) is replaced on the next query,
    // not an uncaught error in whichever test file the worker runs then.
    pool.on("error", () => {});
  }
  return pool;
}
/** Direct database access for arranging data and checking rows (never for the code under test). */
export function db(): Db {
  return drizzle(testPool(), { schema });
}
export const sql = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  (await testPool().query(text, params)).rows as T[];

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** One HTTP call to the running Worker; JSON bodies are sent with the JSON content type. */
export async function call<T = any>(
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; headers?: Record<string, string>; rawBody?: string | Uint8Array; baseUrl?: string } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Uint8Array | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(`${opts.baseUrl ?? apiUrl()}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (e.g. the docs page)
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

export interface TestCompany {
  companyId: number;
  token: string;
  tokenId: number;
  get: <T = any>(path: string, opts?: Parameters<typeof call>[2]) => Promise<ApiResponse<T>>;
  post: <T = any>(path: string, body?: unknown, opts?: Parameters<typeof call>[2]) => Promise<ApiResponse<T>>;
  patch: <T = any>(path: string, body?: unknown, opts?: Parameters<typeof call>[2]) => Promise<ApiResponse<T>>;
  put: <T = any>(path: string, body?: unknown, opts?: Parameters<typeof call>[2]) => Promise<ApiResponse<T>>;
  del: <T = any>(path: string, opts?: Parameters<typeof call>[2]) => Promise<ApiResponse<T>>;
  /** Loads records through the admin import (API field names, `ref`s); returns ref → id. */
  load: (data: unknown) => Promise<Record<string, any>>;
}

let seq = 0;
/** A fresh company with its own token: tests isolate by company, not by wiping the database. */
export async function newCompany(opts: { name?: string; accountingSync?: boolean } = {}): Promise<TestCompany> {
  const d = db();
  const { company_id } = await createCompany(d, {
    name: opts.name ?? `Test Co ${process.pid}-${++seq}-${Date.now()}`,
    accountingSync: opts.accountingSync,
  });
  const { token, token_id } = await createToken(d, { companyId: company_id });
  const as =
    (method: string) =>
    (path: string, body?: unknown, o: Parameters<typeof call>[2] = {}) =>
      call(method, path, { token, ...(body === undefined ? {} : { body }), ...o });
  return {
    companyId: company_id,
    token,
    tokenId: token_id,
    get: (path, o) => call("GET", path, { token, ...o }),
    post: as("POST"),
    patch: as("PATCH"),
    put: as("PUT"),
    del: (path, o) => call("DELETE", path, { token, ...o }),
    load: async (data) => (await importFile(d, { companyId: company_id, data })).ids,
  };
}

/**
 * Sends `n` requests at once and answers each one's final answer. One answered 503 is sent again, as a
 * client does after Retry-After: on a loaded machine a request waiting on the others' locks may pass the
 * database deadline (DB_DEADLINE_MS), and 503 `service_unavailable` is then the API's answer, one that
 * changed nothing. The test checks what the answers and the rows show once every request got through.
 * Gives up after 20 s, answering the last 503.
 */
export async function allAtOnce(n: number, send: () => Promise<ApiResponse>): Promise<ApiResponse[]> {
  const until = Date.now() + 20_000;
  const settle = async (): Promise<ApiResponse> => {
    const res = await send();
    if (res.status !== 503 || Date.now() > until) return res;
    expect({ code: res.body?.error?.code, retryAfter: res.headers.has("retry-after") }).toEqual({
      code: "service_unavailable",
      retryAfter: true,
    });
    await new Promise((r) => setTimeout(r, 250 + Math.random() * 250));
    return settle();
  };
  return Promise.all(Array.from({ length: n }, settle));
}

/** The Worker's JSON log lines written so far (the shared Worker's, or those of a Worker started with its own `logFile`). */
export function workerLogLines(logFile: string = inject("logFile")): string[] {
  return readFileSync(logFile, "utf8")
    .split("\n")
    .filter((l) => l.trim());
}

/**
 * How long a test waits for a queue consumer that crashes on every try to give the message up: eleven
 * failed batches (max_retries 10) and then the dead-letter queue's, each at least a second
 * (max_batch_timeout), 12 s when idle; five times that allows for a loaded machine.
 */
export const DEAD_LETTER_WITHIN_MS = 60_000;

/**
 * Polls `probe` until `done` holds for its value (by default: until it is truthy) and returns that
 * value; for work the Worker finishes after its response (deferred writes, queue consumers, logs).
 * Gives up after `withinMs` (20 s unless the work takes longer by design) with what it waited for and the last value.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  done: (value: T) => boolean = Boolean,
  withinMs = 20_000,
): Promise<T> {
  const until = Date.now() + withinMs;
  let value = await probe();
  while (!done(value)) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
    value = await probe();
  }
  return value;
}

/**
 * The error body an answer must carry for this error: `request_id` is the answer's own X-Request-Id.
 * Compare with `toEqual`.
 */
export const errorEnvelope = (res: ApiResponse, error: { code: string; message: unknown; details: unknown }) => ({
  error: { ...error, request_id: res.headers.get("x-request-id") },
});

/**
 * Request options that give two requests the same X-Request-Id, for comparing their answers whole (an
 * error body carries the request's id): the same request sent twice, say as company A and as company B.
 */
export const asRequest = (id: string, opts: Parameters<typeof call>[2] = {}) => ({
  ...opts,
  headers: { ...opts.headers, "x-request-id": id },
});

/** Asserts the error envelope and returns it. */
export function expectError(res: ApiResponse, status: number, code: string) {
  if (res.status !== status || res.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res.body.error as { code: string; message: string; details: any };
}

/**
 * Requests over one kept-alive connection (one socket at most), each answered with its status and the
 * socket it used: whether a connection survives an answer is seen by the next request on it.
 */
export function keepAliveClient(baseUrl = apiUrl()) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, pathAndQuery: string, token: string, body?: Buffer) =>
    new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
      const req = request(
        `${baseUrl}${pathAndQuery}`,
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body ? { "content-type": "application/json", "content-length": body.length } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

/** Half a megabyte of JSON, more than a socket's buffers hold: left unread, the connection could not be reused. */
export const largeBody = () => Buffer.from(JSON.stringify({ name: "x".repeat(512 * 1024) }));
