import { describe, expect, it } from "vitest";
import { BODY_READ_TIMEOUT_MS, MAX_JSON_DEPTH } from "../src/http/json-body";
import { apiUrl, call, expectError, newCompany, sql } from "./support/api";

describe("JSON body guard: values PostgreSQL cannot store are a 400, never a 500", () => {
  it("rejects the NUL character in a string or key, naming the field, on any route", async () => {
    const co = await newCompany();
    let err = expectError(await co.post("/clients", { company_name: "a\u0000b" }), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "company_name", message: expect.stringContaining("U+0000") }]);
    err = expectError(await co.post("/clients", { company_name: "ok", "x\u0000": 1 }), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "(body)", message: expect.stringContaining("U+0000") }]);
    // A literal backslash-u sequence is ordinary text.
    expect((await co.post("/clients", { company_name: "a\\u0000b" })).status).toBe(200);
  });

  it("rejects a lone surrogate in a string or key (jsonb refuses it, text would store U+FFFD); a proper pair is fine", async () => {
    const co = await newCompany();
    let err = expectError(await co.post("/clients", { company_name: "a\ud800b" }), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "company_name", message: expect.stringContaining("surrogate") }]);
    err = expectError(await co.post("/clients", { company_name: "ok", tags: { "\udc00": 1 } }), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "tags", message: expect.stringContaining("surrogate") }]);
    const ok = await co.post("/clients", { company_name: "a\ud83d\ude00b" });
    expect(ok.status).toBe(200);
    expect(ok.body.client.company_name).toBe("a😀b");
  });

  it(`rejects JSON nested deeper than ${MAX_JSON_DEPTH} levels`, async () => {
    const co = await newCompany();
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) deep = [deep];
    const err = expectError(await co.post("/clients", { company_name: "ok", tax_exempt_reason: deep }), 400, "invalid_request");
    expect(err.details[0].field).toMatch(/^tax_exempt_reason(\.0)+$/);
  });
});

describe("body bytes and charset", () => {
  const post = (co: { token: string }, rawBody: string | Uint8Array, contentType = "application/json") =>
    call("POST", "/clients", { token: co.token, rawBody, headers: { "content-type": contentType } });

  it("400 naming the body for bytes that are not UTF-8 (never stored as U+FFFD), writing nothing", async () => {
    const co = await newCompany();
    const prefix = new TextEncoder().encode('{"company_name": "caf');
    const suffix = new TextEncoder().encode('"}');
    for (const bad of [[0xe9], [0xc3], [0xff, 0xfe], [0xed, 0xa0, 0x80]]) {
      const body = new Uint8Array([...prefix, ...bad, ...suffix]);
      const err = expectError(await post(co, body), 400, "invalid_request");
      expect(err.message).toMatch(/UTF-8/);
      expect(err.details).toEqual([{ field: "(body)", message: expect.stringContaining("UTF-8") }]);
    }
    expect(await sql("select 1 from clients where company_id = $1", [co.companyId])).toEqual([]);
    // The same text in UTF-8 is fine.
    const ok = await post(co, new Uint8Array([...prefix, 0xc3, 0xa9, ...suffix]));
    expect(ok.status).toBe(200);
    expect(ok.body.client.company_name).toBe("café");
  });

  it("415 for a declared charset other than UTF-8; UTF-8 in any spelling is accepted", async () => {
    const co = await newCompany();
    for (const charset of ["utf-16", "latin1", "ISO-8859-1", '"us-ascii"']) {
      const err = expectError(await post(co, '{"company_name": "x"}', `application/json; charset=${charset}`), 415, "invalid_request");
      expect(err.message).toMatch(/UTF-8/);
      expect(err.details).toEqual({ content_type: `application/json; charset=${charset}` });
    }
    expect(await sql("select 1 from clients where company_id = $1", [co.companyId])).toEqual([]);
    for (const charset of ["UTF-8", '"utf-8"', "utf8"]) {
      expect((await post(co, '{"company_name": "x"}', `application/json;charset=${charset}`)).status).toBe(200);
    }
  });
});

describe("body read deadline", () => {
  it("408 in the error envelope when the body does not arrive in time, and the Worker keeps serving", async () => {
    const co = await newCompany();
    // Sends the start of a body and then nothing: the guard must answer, not wait for ever.
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"company_name": "slow'));
      },
    });
    const started = Date.now();
    const res = await fetch(`${apiUrl()}/clients`, {
      method: "POST",
      headers: { authorization: `Bearer ${co.token}`, "content-type": "application/json" },
      body: stalled,
      duplex: "half",
      signal: AbortSignal.timeout(BODY_READ_TIMEOUT_MS + 15_000),
    } as RequestInit);
    expect(res.status).toBe(408);
    expect(((await res.json()) as any).error).toMatchObject({
      code: "invalid_request",
      details: { timeout_seconds: BODY_READ_TIMEOUT_MS / 1000 },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(BODY_READ_TIMEOUT_MS - 100);
    expect(await sql("select 1 from clients where company_id = $1", [co.companyId])).toEqual([]);
    expect((await co.get("/clients")).status).toBe(200);
  }, 40_000);
});
