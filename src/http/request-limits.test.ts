import { describe, expect, it } from "vitest";
import { loggedPath } from "./request-context";
import { MAX_PATH_BYTES, MAX_QUERY_BYTES, targetLengths, targetTooLong } from "./request-limits";

describe("request target limits", () => {
  it("measures the path and the query string by position, the fragment left out", () => {
    expect(targetLengths("https://api.example/api/v1/clients?q=ab")).toEqual({ pathBytes: 15, queryBytes: 4 });
    expect(targetLengths("http://localhost:8787/")).toEqual({ pathBytes: 1, queryBytes: 0 });
    expect(targetLengths("http://h/a?#frag")).toEqual({ pathBytes: 2, queryBytes: 0 });
    expect(targetLengths("http://h/a/b#x?y")).toEqual({ pathBytes: 4, queryBytes: 0 });
  });

  it("refuses a part over its limit, path first, and names it", () => {
    expect(targetTooLong(MAX_PATH_BYTES, MAX_QUERY_BYTES)).toBeUndefined();
    expect(targetTooLong(MAX_PATH_BYTES + 1, MAX_QUERY_BYTES + 1)).toEqual({
      message: `The request path is longer than ${MAX_PATH_BYTES} bytes`,
      details: { part: "path", max_bytes: MAX_PATH_BYTES },
    });
    expect(targetTooLong(1, MAX_QUERY_BYTES + 1)?.details).toEqual({
      part: "query",
      max_bytes: MAX_QUERY_BYTES,
    });
  });
});

describe("the access log's path", () => {
  it("writes each segment holding an e-mail address, plain or percent-encoded in any case, as {email}", () => {
    expect(loggedPath("/api/v1/clients/ana@example.com")).toBe("/api/v1/clients/{email}");
    expect(loggedPath("/api/v1/clients/ana%40example.com/x")).toBe("/api/v1/clients/{email}/x");
    expect(loggedPath("/a%40b/c/d@e/f%40")).toBe("/{email}/c/{email}/{email}");
    expect(loggedPath("/api/v1/clients/42")).toBe("/api/v1/clients/42");
  });

  it("keeps long segments without an address as they are, and replaces a long one holding one whole", () => {
    const long = "x".repeat(60_000);
    expect(loggedPath(`/api/v1/${long}`)).toBe(`/api/v1/${long}`);
    expect(loggedPath(`/api/v1/${long}@${long}/next`)).toBe("/api/v1/{email}/next");
    expect(loggedPath(`/${"%4".repeat(20_000)}/${"@/".repeat(3)}`)).toBe(`/${"%4".repeat(20_000)}/{email}/{email}/{email}/`);
  });
});
