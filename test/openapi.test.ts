import { describe, expect, it } from "vitest";
import { call, expectError } from "./support/api";

describe("OpenAPI document and docs page", () => {
  it("serves an OpenAPI 3.1 document without a token, with the bearer scheme", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.info.version).toBe("1.0.0");
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(res.body.servers[0].url).toMatch(/\/api\/v1$/);
  });

  it("documents every secured operation with the bearer scheme and its error statuses", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
    expect(ops.length).toBeGreaterThanOrEqual(4);
    // Only the health checks are public, and they say so with an empty security list.
    expect(ops.filter(({ op }) => op.security?.length === 0).map(({ path }) => path)).toEqual(["/health", "/health/ready"]);
    for (const { op } of ops.filter(({ op }) => op.security?.length !== 0)) {
      expect(op.security).toEqual([{ bearerAuth: [] }]);
      // 400 comes from the shared guards (e.g. NUL in a query) on every route; bodies can also be 413 / 415.
      for (const status of ["200", "400", "401", "429", "500"]) expect(Object.keys(op.responses)).toContain(status);
      if (op.requestBody) for (const status of ["413", "415"]) expect(Object.keys(op.responses)).toContain(status);
      for (const [status, r] of Object.entries(op.responses as Record<string, any>)) {
        if (status !== "200") expect(r.content["application/json"].schema.$ref).toBe("#/components/schemas/Error");
      }
    }
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/clients", "/clients/{id}"]));
  });

  it("lists every route of the API", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const operations = Object.entries(doc.paths as Record<string, object>).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        "GET /clients",
        "POST /clients",
        "GET /clients/{id}",
        "PATCH /clients/{id}",
        "GET /orders",
        "POST /orders",
        "GET /orders/{id}",
        "PATCH /orders/{id}",
        "DELETE /orders/{id}",
        "GET /products/search",
        "GET /products/{source}",
        "GET /mail/threads/{legacyThreadId}",
        "PUT /mail/email-threads/{legacyThreadId}",
        "GET /mail/email-threads/{legacyThreadId}",
        "GET /health",
        "GET /health/ready",
      ].sort(),
    );
  });

  it("declares the headers middleware adds: request id everywhere, rate-limit headers, Retry-After on 429", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    expect(doc.components.headers["X-Request-Id"].schema.type).toBe("string");
    for (const item of Object.values(doc.paths as Record<string, Record<string, any>>)) {
      for (const op of Object.values(item)) {
        if (op.security?.length === 0) {
          // Public: no key, so no limiter and no rate-limit headers.
          expect(op.responses["200"].headers).toEqual({ "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } });
          continue;
        }
        expect(op.responses["200"].headers).toMatchObject({
          "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
          "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
        });
        expect(op.responses["429"].headers["Retry-After"]).toEqual({ $ref: "#/components/headers/Retry-After" });
        expect(op.responses["401"].headers["X-RateLimit-Limit"]).toBeUndefined();
      }
    }
  });

  it("answers 401 with the error envelope on every documented operation without a token", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const [method, operation] of Object.entries(item)) {
        // Public operations (health) declare an empty security list.
        if ((operation as { security?: unknown[] }).security?.length === 0) continue;
        const concrete = path.replace(/\{[^}]+\}/g, "1");
        const res = await call(method.toUpperCase(), concrete, method === "get" || method === "delete" ? {} : { body: {} });
        expectError(res, 401, "unauthenticated");
        expect(res.headers.get("x-request-id")).toBeTruthy();
      }
    }
  });

  it("serves the interactive reference page without a token", async () => {
    const res = await call("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(String(res.body)).toContain("/api/v1/openapi.json");
  });
});
