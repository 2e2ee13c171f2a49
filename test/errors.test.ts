import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { call, errorEnvelope, expectError, keepAliveClient, largeBody, newCompany, sql, waitFor, workerLogLines } from "./support/api";
import { scanLog } from "./support/log-scan";
import { companyRows, populated, tokenOperations } from "./support/operations";
import { startWorker } from "./support/worker";

describe("error envelope", () => {
  it("404 not_found for unknown routes, inside and outside /api/v1", async () => {
    const a = await newCompany();
    const inside = expectError(await a.get("/no-such-thing"), 404, "not_found");
    expect(inside.message).toContain("/api/v1/no-such-thing");
    const res = await fetch(inject("apiUrl").replace("/api/v1", "/elsewhere"));
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe("not_found");
  });

  it("a trailing slash names another path: 404 for a route's path with one, not the route", async () => {
    const a = await newCompany();
    const { id } = (await a.post<{ client: { id: number } }>("/clients", { company_name: "Slash Co" })).body.client;
    expect((await a.get(`/clients/${id}`)).status).toBe(200);
    for (const path of ["/clients/", `/clients/${id}/`, "/orders/", "/me/"]) {
      const err = expectError(await a.get(path), 404, "not_found");
      expect(err.message).toBe(`No route for GET /api/v1${path}`);
    }
    expectError(await call("GET", "/clients/"), 401, "unauthenticated");
  });

  it("every error body carries request_id, the answer's X-Request-Id: the caller's own id when it sent one, else a new one per request", async () => {
    const a = await newCompany();
    const answers = [
      await call("GET", "/clients"), // 401 before routing
      await a.get("/no-such-thing"), // 404 without a route
      await a.del("/clients"), // 405
      await a.get("/clients/abc"), // 400 validation
      await a.get("/clients/2147483000"), // 404 from a handler
      await a.post("/clients", { company_name: "" }), // 400 body
      await call("POST", "/clients", { token: a.token, rawBody: "{", headers: { "content-type": "application/json" } }), // 400 JSON
    ];
    const ids = new Set<string>();
    for (const res of answers) {
      const header = res.headers.get("x-request-id");
      expect(header, `${res.status} ${JSON.stringify(res.body)}`).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.error.request_id, JSON.stringify(res.body)).toBe(header);
      ids.add(header!);
    }
    expect(ids.size).toBe(answers.length);
    const traced = await a.get("/orders/2147483000", { headers: { "x-request-id": "support-4711" } });
    expect(traced.body).toEqual({ error: { code: "not_found", message: "Order not found", details: null, request_id: "support-4711" } });
    expect(traced.headers.get("x-request-id")).toBe("support-4711");
  });

  it("405 with Allow for a known path with the wrong method", async () => {
    const a = await newCompany();
    const res = await a.del("/clients");
    const err = expectError(res, 405, "invalid_request");
    expect(res.headers.get("allow")).toBe("GET, POST");
    expect(err.details.allow).toEqual(["GET", "POST"]);
    expect((await a.put("/clients/5", { company_name: "x" })).headers.get("allow")).toBe("GET, PATCH");
  });

  it("400 for malformed JSON", async () => {
    const a = await newCompany();
    const res = await call("POST", "/clients", {
      token: a.token,
      rawBody: '{"company_name": "x",',
      headers: { "content-type": "application/json" },
    });
    expect(expectError(res, 400, "invalid_request").message).toMatch(/not valid JSON/);
  });

  it("415 for a JSON body without the JSON content type", async () => {
    const a = await newCompany();
    expectError(await call("POST", "/clients", { token: a.token, rawBody: '{"company_name":"x"}' }), 415, "invalid_request");
    expectError(
      await call("POST", "/clients", { token: a.token, rawBody: '{"company_name":"x"}', headers: { "content-type": "text/plain" } }),
      415,
      "invalid_request",
    );
    expect(await sql("select 1 from clients where company_id = $1", [a.companyId])).toEqual([]);
  });

  it("accepts application/json with a charset", async () => {
    const a = await newCompany();
    const res = await call("POST", "/clients", {
      token: a.token,
      rawBody: '{"company_name":"Charset"}',
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(res.status).toBe(200);
  });

  it("400 for a missing body", async () => {
    const a = await newCompany();
    expectError(await call("POST", "/clients", { token: a.token }), 400, "invalid_request");
    expectError(
      await call("PATCH", "/clients/1", { token: a.token, headers: { "content-type": "application/json" } }),
      400,
      "invalid_request",
    );
  });

  it("every operation that takes a body: a field of the wrong type is 400 invalid_request naming the field, and nothing is written", async () => {
    const co = await newCompany();
    const { concrete, wrongBody } = await populated(co);
    const before = await companyRows(co.companyId);
    const withBody = (await tokenOperations()).filter(({ op }) => op.requestBody);
    expect(withBody.length).toBeGreaterThanOrEqual(13);
    for (const operation of withBody) {
      const what = `${operation.method.toUpperCase()} ${operation.path}`;
      const { field, body } = wrongBody(operation);
      const res = await call(operation.method.toUpperCase(), concrete(operation), { token: co.token, body });
      const err = expectError(res, 400, "invalid_request");
      expect(
        err.details.map((d: { field: string }) => d.field),
        what,
      ).toContain(field);
    }
    expect(await companyRows(co.companyId)).toEqual(before);
  });

  it("413 for a body over 1 MiB, writing nothing", async () => {
    const a = await newCompany();
    const big = JSON.stringify({ company_name: "x".repeat(1024 * 1024 + 10) });
    const err = expectError(
      await call("POST", "/clients", { token: a.token, rawBody: big, headers: { "content-type": "application/json" } }),
      413,
      "invalid_request",
    );
    expect(err.details.max_bytes).toBe(1024 * 1024);
    expect(await sql("select 1 from clients where company_id = $1", [a.companyId])).toEqual([]);
  });

  it("503 service_unavailable with Retry-After, without internals, when the database is unreachable", async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), "crm-broken-"));
    const bindings = { ...inject("workerBindings"), DATABASE_URL: "postgres://postgres:postgres@127.0.0.1:1/crm" };
    const logFile = path.join(tmp, "worker.log");
    const worker = await startWorker({ script: inject("workerScript"), bindings, logFile });
    try {
      const a = await newCompany();
      const res = await call("GET", "/clients", { token: a.token, baseUrl: `${worker.url}/api/v1` });
      expect(res.status).toBe(503);
      expect(res.body).toEqual(
        errorEnvelope(res, {
          code: "service_unavailable",
          message: "The database is unavailable; retry shortly",
          details: { retry_after_seconds: 5 },
        }),
      );
      expect(res.headers.get("retry-after")).toBe("5");
      expect(res.headers.get("x-request-id")).toBeTruthy();
      // Logged as what failed, without the query's SQL, its parameters (the token digest) or a stack trace.
      const line = await waitFor("the error log line", () =>
        workerLogLines(logFile).find((l) => l.includes(res.headers.get("x-request-id")!) && l.includes("database unavailable")),
      );
      expect(JSON.parse(line!).error).toMatchObject({ name: expect.any(String), message: expect.any(String) });
      expect(scanLog(logFile)).toEqual([]);
      expect(readFileSync(logFile, "utf8")).not.toContain(createHash("sha256").update(a.token).digest("hex").slice(8, 40));
    } finally {
      await worker.dispose();
    }
  });
});

describe("an answer given before the body was read", () => {
  it("reads and drops the body first, so the next request on the same connection is served", async () => {
    const a = await newCompany();
    const client = keepAliveClient();
    const body = largeBody();
    try {
      for (const [method, target, status, token] of [
        ["POST", "/clients", 401, "not-a-token"], // refused by the bearer check, before routing
        ["POST", "/no-such-route", 404, a.token], // no route
        ["PUT", "/clients", 405, a.token], // another method
        ["POST", "/clients?name=%00", 400, a.token], // refused by the parameter guard, before routing
      ] as const) {
        const refused = await client.send(method, target, token, body);
        expect(refused.status).toBe(status);
        const next = await client.send("GET", "/clients?per_page=1", a.token);
        expect(next.status).toBe(200);
        expect(next.socket).toBe(refused.socket);
      }
    } finally {
      client.close();
    }
  });
});

describe("routing comes before the body", () => {
  it("answers 405 / 404 for a wrong method or an unknown route, whatever the body", async () => {
    const a = await newCompany();
    // No body, or a body that is not JSON: still the routing answer, not 400 / 415.
    const noBody = await call("PUT", "/clients", { token: a.token });
    expectError(noBody, 405, "invalid_request");
    expect(noBody.headers.get("allow")).toBe("GET, POST");
    expectError(
      await call("POST", "/clients/1", { token: a.token, rawBody: "hello", headers: { "content-type": "text/plain" } }),
      405,
      "invalid_request",
    );
    expectError(await call("POST", "/no-such-route", { token: a.token }), 404, "not_found");
    expectError(
      await call("POST", "/no-such-route", { token: a.token, rawBody: "{", headers: { "content-type": "application/json" } }),
      404,
      "not_found",
    );
    expectError(await call("POST", "/openapi.json", { rawBody: "x" }), 405, "invalid_request");
  });
});

describe("NUL characters in the URL", () => {
  it.each([
    ["/clients?q=%00", "q"],
    ["/clients?q=a%00b&page=1", "q"],
    ["/mail/threads/%00", "(path)"],
    ["/mail/email-threads/ab%00?account_email=a@b.co", "(path)"],
    ["/products/search?q=tee%00", "q"],
    ["/orders?from=2026-01-01%00", "from"],
  ])("GET %s → 400 naming %s", async (path, field) => {
    const a = await newCompany();
    const err = expectError(await a.get(path), 400, "invalid_request");
    expect(err.details).toEqual([expect.objectContaining({ field })]);
  });

  it("PUT with a NUL in the path id → 400, nothing written", async () => {
    const a = await newCompany();
    const res = await a.put("/mail/email-threads/x%00y", { account_email: "a@b.co", messages: [] });
    expectError(res, 400, "invalid_request");
    expect(await sql("select 1 from email_threads where company_id = $1", [a.companyId])).toEqual([]);
  });
});

describe("dates outside what PostgreSQL stores", () => {
  it("400 (not 500) for year 0000 or a timestamp pushed past 9999 by its offset", async () => {
    const a = await newCompany();
    expect(expectError(await a.get("/orders?from=0000-01-01"), 400, "invalid_request").details).toEqual([
      expect.objectContaining({ field: "from" }),
    ]);
    expect(expectError(await a.get("/orders?to=0000-12-31"), 400, "invalid_request").details).toEqual([
      expect.objectContaining({ field: "to" }),
    ]);
    const { id: clientId } = (await a.post("/clients", { company_name: "Dated" })).body.client;
    const order = (await a.post("/orders", { title: "Dated order", client_id: clientId })).body;
    const err = expectError(await a.patch(`/orders/${order.project.id}`, { deadline: "0000-01-01" }), 400, "invalid_request");
    expect(err.details).toEqual([expect.objectContaining({ field: "deadline" })]);
    for (const [field, value] of [
      ["first_message_at", "0000-01-01T00:00:00Z"],
      ["last_synced_at", "9999-12-31T23:59:59-14:00"],
      ["last_message_at", "0001-01-01T00:00:00+14:00"],
      // Read back through JavaScript's date parser, year 0050 would come back as 1950.
      ["first_message_at", "0050-01-01T00:00:00Z"],
      ["first_message_at", "0999-12-31T23:59:59Z"],
    ]) {
      const res = await a.put("/mail/email-threads/dated", { account_email: "a@b.co", messages: [], [field]: value });
      expect(expectError(res, 400, "invalid_request").details).toEqual([expect.objectContaining({ field })]);
    }
    // The edges themselves are fine.
    expect((await a.get("/orders?from=0001-01-01&to=9999-12-31")).status).toBe(200);
    const edges = await a.put("/mail/email-threads/dated", {
      account_email: "a@b.co",
      messages: [],
      first_message_at: "1000-01-01T00:00:00Z",
      last_synced_at: "9999-12-31T23:59:59Z",
    });
    expect(edges.status).toBe(200);
    expect(edges.body.email_thread).toMatchObject({
      first_message_at: "1000-01-01T00:00:00.000Z",
      last_synced_at: "9999-12-31T23:59:59.000Z",
    });
  });
});

describe("numbers in paths and queries are plain digits", () => {
  it.each(["0x1", "1e0", "%20%201", "1.0", "+1", "01x"])("PATCH /clients/%s is a 400, not client 1", async (id) => {
    const a = await newCompany();
    await a.post("/clients", { company_name: "Only one" });
    expectError(await a.patch(`/clients/${id}`, { company_name: "Changed" }), 400, "invalid_request");
    expectError(await a.get(`/orders/${id}`), 400, "invalid_request");
    expect(await sql("select company_name from clients where company_id = $1", [a.companyId])).toEqual([{ company_name: "Only one" }]);
  });

  it.each(["page=0x10", "page=1e3", "per_page=2.0", "per_page=%2010"])("GET /clients?%s is a 400", async (q) => {
    const a = await newCompany();
    expectError(await a.get(`/clients?${q}`), 400, "invalid_request");
  });
});

describe("numeric parameter messages", () => {
  it("says what is wrong: not digits, or out of range", async () => {
    const a = await newCompany();
    const notDigits = expectError(await a.get("/clients?page=0x1"), 400, "invalid_request");
    expect(notDigits.details).toEqual([{ field: "page", message: "Must be a whole number written in digits" }]);
    const tooBig = expectError(await a.get("/clients?per_page=101"), 400, "invalid_request");
    expect(tooBig.details).toEqual([{ field: "per_page", message: expect.stringMatching(/100/) }]);
    const tooSmall = expectError(await a.get("/orders/0"), 400, "invalid_request");
    expect(tooSmall.details[0].message).not.toMatch(/digits/);
  });
});

describe("oversized chunked uploads", () => {
  it("413 for a chunked body over the limit, after which the next requests are served", async () => {
    const a = await newCompany();
    const chunk = new TextEncoder().encode(`"${"x".repeat(64 * 1024 - 2)}",`);
    for (let round = 0; round < 2; round++) {
      // No Content-Length: the limit is only known while reading, so the guard must drain the rest.
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode('{"company_name": ['));
          if (sent >= 40) {
            controller.enqueue(new TextEncoder().encode('"x"]}'));
            controller.close();
            return;
          }
          sent++;
          controller.enqueue(chunk);
        },
      });
      const res = await fetch(`${inject("apiUrl")}/clients`, {
        method: "POST",
        headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
        body,
        duplex: "half",
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(((await res.json()) as any).error).toMatchObject({ code: "invalid_request", details: { max_bytes: 1024 * 1024 } });
      expect((await a.get("/clients")).status).toBe(200);
      expect((await a.post("/clients", { company_name: "After the big one" })).status).toBe(200);
    }
  });
});
