import { fetchApp } from "../../../src/app";
import floorMcp from "../minimal/floor-mcp";
import minimal from "../minimal/worker";

/**
 * The Workers' own CPU per request, without the database's network hop: one of the measured requests
 * (REPLAYED_REQUESTS) through the API's app and through the minimal Worker (test/bench/minimal), `n`
 * times within one request to this Worker. Each SQL-over-HTTP answer is recorded the first time its
 * query is sent and replayed from memory afterwards (with `replay=1`), so what workerd spends is each
 * Worker's own JavaScript and runtime work; the difference is what the API adds (auth, limiter,
 * validation, routing, log line). Redis calls of the Upstash limiter stay real. Unlike requests per
 * second, this hardly moves with the machine's load.
 * `apiLogNotWritten` is the API with the in-memory limiter and `console.log` kept from writing (the line
 * is still built): what writing the request's log line costs locally, where workerd writes each line
 * to Miniflare's stdout pipe.
 * `mcpFloor` is the MCP SDK alone (test/bench/minimal/floor-mcp.ts) answering an MCP request's message.
 * GET /?which=minimal|mcpFloor|apiLogNotWritten|apiMemoryLimiter|api&request=<name>&n=&company=&client=&order=&tokens=a,b,…&replay=0|1
 *   → { statuses: { status: count }, missed: SQL answers not found in the recording }
 */
const networkFetch = globalThis.fetch;
const recorded = new Map<string, { body: string; status: number; headers: [string, string][] }>();
let replay = false;
let missed = 0;

globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if (!url.endsWith("/sql") || typeof init?.body !== "string") return networkFetch(input, init);
  const answer = replay ? recorded.get(init.body) : undefined;
  if (answer) return new Response(answer.body, { status: answer.status, headers: answer.headers });
  if (replay) missed++;
  const res = await networkFetch(input, init);
  const body = await res.text();
  recorded.set(init.body, { body, status: res.status, headers: [...res.headers] });
  return new Response(body, { status: res.status, headers: res.headers });
}) as typeof fetch;

type Env = Record<string, string>;
let memoryLimiterEnv: Env | undefined;

/** A tools/call of get_client with this id, as an MCP client sends it. */
const getClientCall = (id: string, meta?: Record<string, string>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get_client", arguments: { id }, ...(meta ? { _meta: meta } : {}) },
  });
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/**
 * The measured requests: path (under /api/v1 for the API; with `?company=` for the minimal Worker), method,
 * body, headers; `anonymous` ones are sent without a token. The last seven are refused before their work
 * (bench:cpu's "refused" rows): without a token (401), a path at the 8 KiB limit without a token (401), a
 * 60 KB path (414), and an MCP tool call refused before its request: with an empty id, the same with 300 KB
 * of `_meta` beside it (what reading a 300 KB message costs), with a 300 KB id (414), and with a 1 MB id.
 */
const REQUESTS: Record<
  string,
  (q: URLSearchParams) => { path: string; method?: string; body?: string; headers?: Record<string, string>; anonymous?: boolean }
> = {
  getClient: (q) => ({ path: `/clients/${q.get("client")}` }),
  listClients: () => ({ path: "/clients" }),
  createClient: () => ({
    path: "/clients",
    method: "POST",
    body: JSON.stringify({ company_name: "Replayed Print Co", email: "replayed@example.com" }),
  }),
  getOrder: (q) => ({ path: `/orders/${q.get("order")}` }),
  unauthenticated: () => ({ path: "/clients/1", anonymous: true }),
  path8k: () => ({ path: `/clients/${"x".repeat(8192 - "/api/v1/clients/".length)}`, anonymous: true }),
  path60k: () => ({ path: `/clients/${"x".repeat(60_000)}`, anonymous: true }),
  mcpEmptyArgument: () => ({ path: "/mcp", method: "POST", body: getClientCall(""), headers: MCP_HEADERS }),
  mcpEmptyArgument300kMessage: () => ({
    path: "/mcp",
    method: "POST",
    body: getClientCall("", { pad: "x".repeat(300_000) }),
    headers: MCP_HEADERS,
  }),
  mcpArgument300k: () => ({ path: "/mcp", method: "POST", body: getClientCall("x".repeat(300_000)), headers: MCP_HEADERS }),
  // The largest the body limit (1 MiB) lets through.
  mcpArgument1m: () => ({ path: "/mcp", method: "POST", body: getClientCall("x".repeat(1_000_000)), headers: MCP_HEADERS }),
};

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext) {
    const q = new URL(request.url).searchParams;
    const [which, n, company] = [q.get("which"), Number(q.get("n")), q.get("company")];
    const measured = REQUESTS[q.get("request") ?? "getClient"](q);
    const tokens = (q.get("tokens") ?? "").split(",");
    replay = q.get("replay") === "1";
    missed = 0;
    // One bindings object for every request, as an isolate sees it.
    memoryLimiterEnv ??= { ...env, RATE_LIMIT_BACKEND: "memory" };
    const statuses: Record<number, number> = {};
    const writeLog = console.log;
    if (which === "apiLogNotWritten") console.log = () => {};
    const json = measured.headers ?? (measured.body ? { "content-type": "application/json" } : undefined);
    try {
      for (let i = 0; i < n; i++) {
        const request = (url: string, headers?: HeadersInit) => new Request(url, { method: measured.method, headers, body: measured.body });
        const res =
          which === "mcpFloor"
            ? await floorMcp.fetch(request(`http://bench${measured.path}`, json))
            : which === "minimal"
              ? await minimal.fetch(request(`http://bench${measured.path}?company=${company}`, json), env, ctx)
              : await fetchApp(
                  request(`http://bench/api/v1${measured.path}`, {
                    ...(measured.anonymous ? {} : { authorization: `Bearer ${tokens[i % tokens.length]}` }),
                    // One request id for all: a write's statement carries it (its events'), and must match the recording.
                    "x-request-id": "replayed",
                    ...json,
                  }),
                  which === "api" ? env : memoryLimiterEnv,
                  ctx,
                );
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    } finally {
      console.log = writeLog;
    }
    return Response.json({ statuses, missed });
  },
};
