import { mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, errorEnvelope } from "../../../test/support/api";
import { type RunningWorker, startWorker } from "../../../test/support/worker";
import { READY_CHECK_TIMEOUT_MS } from "./ready";

const CLOSED_PORT_DB = "postgres://postgres:s3cret-pw@127.0.0.1:1/crm";

/** The Workers these tests need beside the suite's: the same bundle with a dependency down or missing. */
const DATABASE_DOWN = { DATABASE_URL: CLOSED_PORT_DB };
const NO_REDIS = { UPSTASH_REDIS_REST_URL: "", UPSTASH_REDIS_REST_TOKEN: "" };
const NOTHING = { DATABASE_URL: "", ...NO_REDIS };
const MEMORY_LIMITER = { RATE_LIMIT_BACKEND: "memory", ...NO_REDIS };
const redisSilent = () => ({ UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${silentPort}` });

/** A TCP server that accepts and never answers: a dependency that hangs. */
let silent: Server;
let silentPort = 0;
const sockets = new Set<Socket>();
let tmp: string;
const workers: RunningWorker[] = [];
const started = new Map<string, Promise<string>>();

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), "crm-health-"));
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentPort = (silent.address() as { port: number }).port;
  // Started here, under the hook's time limit, not the tests': a workerd start took over 10 s on a loaded machine.
  await Promise.all([DATABASE_DOWN, NO_REDIS, NOTHING, MEMORY_LIMITER, redisSilent()].map(workerWith));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(workers.map((w) => w.dispose()));
  await new Promise((r) => silent.close(r));
});

/** The same bundle with some bindings replaced (a dependency down or missing); one Worker per set. */
function workerWith(bindings: Record<string, string>): Promise<string> {
  const key = JSON.stringify(bindings);
  if (!started.has(key)) started.set(key, startWith(bindings));
  return started.get(key)!;
}

async function startWith(bindings: Record<string, string>) {
  const all = { ...inject("workerBindings"), ...bindings };
  for (const [k, v] of Object.entries(all)) if (v === "") delete all[k];
  const worker = await startWorker({ script: inject("workerScript"), bindings: all, logFile: path.join(tmp, "worker.log") });
  workers.push(worker);
  return `${worker.url}/api/v1`;
}

describe("GET /health", () => {
  it("answers 200 without a token and without touching the database (it answers with the database down)", async () => {
    expect((await call("GET", "/health")).body).toEqual({ status: "ok" });
    const baseUrl = await workerWith(DATABASE_DOWN);
    const res = await call("GET", "/health", { baseUrl });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
    // The same Worker cannot serve a database route: the database really is down for it.
    expect((await call("GET", "/health/ready", { baseUrl })).status).toBe(503);
  });

  it("is not rate limited: no token, no limiter headers", async () => {
    const res = await call("GET", "/health");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });
});

describe("GET /health/ready", () => {
  it("answers 200 with both checks ok on the running stack", async () => {
    const res = await call("GET", "/health/ready");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ready", checks: { database: "ok", redis: "ok" } });
  });

  it("503 naming the database when it is unreachable, without the connection string", async () => {
    const res = await call("GET", "/health/ready", { baseUrl: await workerWith(DATABASE_DOWN) });
    expect(res.status).toBe(503);
    expect(res.body).toEqual(
      errorEnvelope(res, {
        code: "service_unavailable",
        message: "Not ready: database unreachable",
        details: { database: "unreachable", redis: "ok" },
      }),
    );
    expect(JSON.stringify(res.body)).not.toContain("s3cret");
    expect(JSON.stringify(res.body)).not.toContain("127.0.0.1");
  });

  it(
    "503 naming Redis when it does not answer within the deadline",
    async () => {
      const baseUrl = await workerWith(redisSilent());
      const res = await call("GET", "/health/ready", { baseUrl });
      expect(res.status).toBe(503);
      expect(res.body).toEqual(
        errorEnvelope(res, {
          code: "service_unavailable",
          message: "Not ready: redis timeout",
          details: { database: "ok", redis: "timeout" },
        }),
      );
      expect(JSON.stringify(res.body)).not.toContain(inject("workerBindings").UPSTASH_REDIS_REST_TOKEN);
    },
    10_000 + READY_CHECK_TIMEOUT_MS,
  );

  it("503 naming Redis when it is not configured; without DATABASE_URL the service is misconfigured (500); the in-memory limiter counts as ready", async () => {
    const noRedis = await call("GET", "/health/ready", {
      baseUrl: await workerWith(NO_REDIS),
    });
    expect(noRedis.status).toBe(503);
    expect(noRedis.body.error.message).toBe("Not ready: redis not configured");
    expect(noRedis.body.error.details).toEqual({ database: "ok", redis: "not_configured" });

    const none = await call("GET", "/health/ready", {
      baseUrl: await workerWith(NOTHING),
    });
    expect(none.status).toBe(500);
    expect(none.body.error.code).toBe("internal_error");

    const memory = await call("GET", "/health/ready", {
      baseUrl: await workerWith(MEMORY_LIMITER),
    });
    expect(memory.status).toBe(200);
    expect(memory.body.checks).toEqual({ database: "ok", redis: "memory" });
  });

  it("both routes are in the OpenAPI document as public operations", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    for (const p of ["/health", "/health/ready"]) expect(doc.paths[p].get.security).toEqual([]);
    expect(Object.keys(doc.paths["/health/ready"].get.responses)).toEqual(["200", "503"]);
  });
});

describe("docs page", () => {
  it("loads the pinned reference bundle from this origin, under a policy allowing only this origin's scripts", async () => {
    const page = await call("GET", "/docs");
    expect(page.status).toBe(200);
    const html = String(page.body);
    const scripts = [...html.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
    expect(scripts.map((m) => /src="([^"]+)"/.exec(m[1])?.[1])).toEqual(["/api/v1/docs/scalar.js", "/api/v1/docs/init.js"]);
    expect(scripts.every((m) => m[2].trim() === "")).toBe(true); // no inline script
    expect(html).not.toMatch(/https?:\/\//);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");

    // The bundle served is the one package-lock.json pins, byte for byte.
    const origin = new URL(inject("apiUrl")).origin;
    const bundle = await fetch(`${origin}/api/v1/docs/scalar.js`);
    expect(bundle.status).toBe(200);
    const pinned = realpathSync(path.resolve(import.meta.dirname, "../../../public/api/v1/docs/scalar.js"));
    expect(pinned).toContain("node_modules/@scalar/api-reference/dist/browser/standalone.js");
    expect(Buffer.from(await bundle.arrayBuffer()).equals(readFileSync(pinned))).toBe(true);
    const init = await fetch(`${origin}/api/v1/docs/init.js`);
    expect(init.status).toBe(200);
    expect(await init.text()).toContain("Scalar.createApiReference");
  });
});
