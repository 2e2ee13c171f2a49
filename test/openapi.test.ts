import { describe, expect, it } from "vitest";
import { openApiDocumentText } from "../src/openapi-document";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS } from "../src/resources";
import { apiUrl, call, expectError, newCompany } from "./support/api";

describe("OpenAPI document and docs page", () => {
  it("serves an OpenAPI 3.1 document without a token, with the bearer scheme", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.info.version).toBe("1.0.0");
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(res.body.servers[0].url).toMatch(/\/api\/v1$/);
  });

  it("serves the document built at build time with its origin: byte for byte what the routes make for that origin", async () => {
    const res = await fetch(`${apiUrl()}/openapi.json`);
    expect(res.headers.get("content-type")).toBe("application/json");
    const served = await res.text();
    // Compared as text, not parsed: the bytes are the contract (a client may hash or cache them).
    expect(served === (await openApiDocumentText(new URL(apiUrl()).origin)), "served document differs from the routes' own").toBe(true);
    expect(served).not.toContain("openapi-document.invalid");
  });

  it("documents every secured operation with the bearer scheme and its error statuses", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
    expect(ops.length).toBeGreaterThanOrEqual(4);
    // Only the health checks are public, and they say so with an empty security list.
    expect(ops.filter(({ op }) => op.security?.length === 0).map(({ path }) => path)).toEqual(["/health", "/health/ready"]);
    for (const { method, op } of ops.filter(({ op }) => op.security?.length !== 0)) {
      expect(op.security).toEqual([{ bearerAuth: [] }]);
      // 400 comes from the shared guards (e.g. NUL in a query) on every route; bodies can also be 413 / 415.
      for (const status of ["200", "400", "401", "429", "500"]) expect(Object.keys(op.responses)).toContain(status);
      if (op.requestBody) for (const status of ["413", "415"]) expect(Object.keys(op.responses)).toContain(status);
      // The scope each operation needs: GET reads, everything else writes (and a read-only token gets 403).
      expect(op["x-required-scope"]).toBe(method === "get" ? "read" : "write");
      expect(Boolean(op.responses["403"])).toBe(method !== "get");
      for (const [status, r] of Object.entries(op.responses as Record<string, any>)) {
        // 304 (If-None-Match) has no body; 201 is an upsert's create; every other non-200 answer is the error envelope.
        if (status === "304") expect(r.content).toBeUndefined();
        else if (status === "201")
          expect([method, r.content["application/json"].schema.$ref]).toEqual([
            "put",
            op.responses["200"].content["application/json"].schema.$ref,
          ]);
        else if (status !== "200") expect(r.content["application/json"].schema.$ref).toBe("#/components/schemas/Error");
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
        "POST /clients/batch",
        "PUT /clients/by-external-id/{external_id}",
        "GET /clients/{id}",
        "PATCH /clients/{id}",
        "GET /orders",
        "POST /orders",
        "POST /orders/batch",
        "PUT /orders/by-external-id/{external_id}",
        "GET /orders/{id}",
        "PATCH /orders/{id}",
        "DELETE /orders/{id}",
        "POST /orders/{id}/approvals",
        "GET /orders/{id}/approvals",
        "GET /approvals/{id}",
        "POST /approvals/{id}/revoke",
        "POST /orders/{id}/items",
        "PATCH /orders/{id}/items/{item_id}",
        "DELETE /orders/{id}/items/{item_id}",
        "POST /orders/{id}/items/{item_id}/decorations/reorder",
        "POST /orders/{id}/items/{item_id}/decorations",
        "PATCH /orders/{id}/items/{item_id}/decorations/{decoration_id}",
        "DELETE /orders/{id}/items/{item_id}/decorations/{decoration_id}",
        "POST /orders/{id}/payments",
        "PATCH /orders/{id}/payments/{payment_id}",
        "DELETE /orders/{id}/payments/{payment_id}",
        "POST /orders/{id}/artworks",
        "PATCH /orders/{id}/artworks/{artwork_id}",
        "DELETE /orders/{id}/artworks/{artwork_id}",
        "GET /me",
        "GET /statuses",
        "POST /statuses",
        "PATCH /statuses/{id}",
        "DELETE /statuses/{id}",
        "GET /taxes",
        "POST /taxes",
        "PATCH /taxes/{id}",
        "DELETE /taxes/{id}",
        "GET /products/search",
        "GET /products/{source}",
        "GET /mail/threads/{legacyThreadId}",
        "PUT /mail/email-threads/{legacyThreadId}",
        "GET /mail/email-threads/{legacyThreadId}",
        "GET /events",
        "GET /events/{id}",
        "GET /request-logs",
        "GET /request-logs/{request_id}",
        "GET /webhook-endpoints",
        "POST /webhook-endpoints",
        "GET /webhook-endpoints/{id}",
        "PATCH /webhook-endpoints/{id}",
        "DELETE /webhook-endpoints/{id}",
        "POST /webhook-endpoints/{id}/rotate-secret",
        "GET /webhook-endpoints/{id}/deliveries",
        "POST /webhook-endpoints/{id}/deliveries/{delivery_id}/retry",
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
          expect(op.responses["200"].headers["X-Request-Id"]).toEqual({ $ref: "#/components/headers/X-Request-Id" });
          expect(op.responses["200"].headers["X-RateLimit-Limit"]).toBeUndefined();
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

  it("names every operation with a unique verb-resource operationId", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const ids = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(ids.every((id) => /^(list|get|create|update|delete|put|upsert|batch|search|rotate|retry|revoke)[A-Z][A-Za-z]+$/.test(id))).toBe(
      true,
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("lists the error codes as an enum and declares the CORS header on every answer", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual(
      expect.arrayContaining(["invalid_request", "unauthenticated", "forbidden", "not_found", "rate_limited", "internal_error"]),
    );
    for (const item of Object.values(doc.paths as Record<string, Record<string, any>>)) {
      for (const op of Object.values(item)) {
        for (const response of Object.values(op.responses as Record<string, any>)) {
          expect(response.headers["Access-Control-Allow-Origin"]).toEqual({ $ref: "#/components/headers/Access-Control-Allow-Origin" });
        }
      }
    }
  });

  it("guards the body of every operation that takes one (the route helper attaches the guard): 415 for text", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const a = await newCompany();
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op.requestBody) continue;
        const concrete = path.replace(/\{[^}]+\}/g, "1");
        const res = await call(method.toUpperCase(), concrete, {
          token: a.token,
          rawBody: "hello",
          headers: { "content-type": "text/plain" },
        });
        expectError(res, 415, "invalid_request");
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(4);
  });

  it("describes every webhook event type under `webhooks`: signature headers and the { id, type, created_at, actor, request_id, data.object | data.object_reference } payload", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const objectRef: Record<string, string> = {
      client: "Client",
      order: "OrderEnvelope",
      email_thread: "EmailThread",
      approval: "Approval",
    };
    for (const type of WEBHOOK_EVENT_TYPES) {
      const op = doc.webhooks[type].post;
      expect(op.security).toEqual([]);
      expect(op.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required])).toEqual([
        ["webhook-id", "header", true],
        ["webhook-timestamp", "header", true],
        ["webhook-signature", "header", true],
      ]);
      const ref: string = op.requestBody.content["application/json"].schema.$ref;
      const payload = doc.components.schemas[ref.replace("#/components/schemas/", "")];
      expect(payload.required.sort()).toEqual(["actor", "created_at", "data", "id", "request_id", "type"]);
      const actor = doc.components.schemas.EventActor;
      expect(actor.properties.type.enum).toEqual(["user", "token", "oauth_grant", "system"]);
      expect(payload.properties.type).toMatchObject({ type: "string", enum: [type] });
      // `data` is either the resource's object (or null: a payload rendered after the resource was gone),
      // or, for an object too large to send, a reference to it; the member present tells them apart.
      const [full, thin] = payload.properties.data.anyOf;
      const object = full.properties.object;
      expect(object.anyOf?.[1]).toEqual({ type: "null" });
      expect(object.anyOf?.[0].$ref).toBe(`#/components/schemas/${objectRef[WEBHOOK_EVENTS[type].resource]}`);
      expect(full.properties.object_reference).toBeUndefined();
      expect(thin.properties.object).toBeUndefined();
      expect(thin.properties.object_reference.$ref).toBe("#/components/schemas/EventObjectReference");
      // A status change and every `*.updated` say what they replaced, in either form.
      const replaces = type === "order.status_changed" || type.endsWith(".updated");
      for (const data of [full, thin]) {
        const previous = data.properties.previous_attributes;
        if (!replaces) expect(previous, type).toBeUndefined();
        else {
          expect(data.required.sort()).toEqual([data === full ? "object" : "object_reference", "previous_attributes"]);
          const named = (ref: string) => doc.components.schemas[ref.replace("#/components/schemas/", "")];
          const schema = named(previous.$ref ?? previous.allOf[0].$ref);
          // An extended schema (order.updated's: the order's fields, or an item's decorations) is allOf its base and the rest.
          const properties = Object.assign(
            {},
            schema.properties,
            ...(schema.allOf ?? []).map((part: any) => (part.$ref ? named(part.$ref).properties : part.properties)),
          );
          expect(properties.status_id?.type ?? properties.company_name.type, type).toEqual(
            type.startsWith("client") ? "string" : ["integer", "null"],
          );
        }
      }
      if (!replaces) expect([full.required, thin.required]).toEqual([["object"], ["object_reference"]]);
    }
    const reference = doc.components.schemas.EventObjectReference;
    expect(reference.required.sort()).toEqual(["id", "resource", "size_bytes", "url"]);
  });

  it("serves the interactive reference page without a token", async () => {
    const res = await call("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(String(res.body)).toContain("/api/v1/openapi.json");
  });
});
