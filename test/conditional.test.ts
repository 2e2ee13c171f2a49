import { describe, expect, it } from "vitest";
import { call, expectError, newCompany } from "./support/api";
import { companyRows, declares, documentChecker, populated, tokenOperations } from "./support/operations";

describe("conditional requests, on every operation that declares them", () => {
  it("If-None-Match with the current ETag is 304 without a body; If-Match with a stale one is 412 and writes nothing, with the current one the write goes through", async () => {
    const co = await newCompany();
    const { concrete, body } = await populated(co);
    const conforms = await documentChecker();
    const operations = await tokenOperations();

    const reads = operations.filter(declares("If-None-Match"));
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const operation of reads) {
      const what = `GET ${operation.path}`;
      const first = await call("GET", concrete(operation), { token: co.token });
      const etag = first.headers.get("etag");
      expect(etag, what).toMatch(/^"[^"]+"$/);
      const unchanged = await call("GET", concrete(operation), { token: co.token, headers: { "if-none-match": etag! } });
      expect(unchanged.status, what).toBe(304);
      expect(unchanged.headers.get("etag"), what).toBe(etag);
      conforms(operation, unchanged);
      // Another tag is not a match: the full answer.
      expect((await call("GET", concrete(operation), { token: co.token, headers: { "if-none-match": '"other"' } })).status, what).toBe(200);
    }

    const writes = operations.filter(declares("If-Match"));
    expect(writes.length).toBeGreaterThanOrEqual(3);
    const before = await companyRows(co.companyId);
    for (const operation of writes) {
      const method = operation.method.toUpperCase();
      const stale = await call(method, concrete(operation), { token: co.token, body: body(operation), headers: { "if-match": '"stale"' } });
      expectError(stale, 412, "invalid_request");
      conforms(operation, stale);
    }
    expect(await companyRows(co.companyId)).toEqual(before);
    // With the current ETag (from the GET of the same path) each write goes through.
    for (const operation of writes) {
      const what = `${operation.method.toUpperCase()} ${operation.path}`;
      const etag = (await call("GET", concrete(operation), { token: co.token })).headers.get("etag")!;
      const res = await call(operation.method.toUpperCase(), concrete(operation), {
        token: co.token,
        body: body(operation),
        headers: { "if-match": etag },
      });
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });

  it("HEAD on every GET operation answers the GET's status and headers (ETag included) without a body", async () => {
    const co = await newCompany();
    const { concrete } = await populated(co);
    const reads = (await tokenOperations()).filter(({ method }) => method === "get");
    expect(reads.length).toBeGreaterThanOrEqual(10);
    for (const operation of reads) {
      const what = `HEAD ${operation.path}`;
      const get = await call("GET", concrete(operation), { token: co.token });
      const head = await call("HEAD", concrete(operation), { token: co.token });
      expect([head.status, head.body], what).toEqual([get.status, ""]);
      for (const name of ["etag", "content-type"]) expect(head.headers.get(name), `${what}: ${name}`).toBe(get.headers.get(name));
    }
  });
});
