import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../src/http/json-body";
import { expectError, newCompany } from "./support/api";

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
