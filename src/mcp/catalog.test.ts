import { describe, expect, it } from "vitest";
import { toolRequest } from "./call";
import { annotationsOf, type OpenApiDocument, toolsOf } from "./catalog";

/** A document in the shape the app's has, with the cases the real one does not have (yet). */
const document = (paths: OpenApiDocument["paths"], schemas: Record<string, unknown> = {}): OpenApiDocument => ({
  paths,
  components: { schemas },
});
const secured = {
  security: [{ bearerAuth: [] }],
  responses: { "200": { content: { "application/json": { schema: { type: "object" } } } } },
};

describe("tools derived from an OpenAPI document", () => {
  it("names tools after the operationId in snake_case; none for public operations or webhook-endpoint management", () => {
    const tools = toolsOf(
      document({
        "/things": { get: { ...secured, operationId: "listThings", summary: "List things" } },
        "/health": { get: { ...secured, security: [], operationId: "getHealth" } },
        "/webhook-endpoints": { get: { ...secured, operationId: "listWebhookEndpoints", tags: ["Webhooks"] } },
      }),
    );
    expect([...tools.keys()]).toEqual(["list_things"]);
  });

  it("puts a body whose field names a parameter under `body`, and sends it as the body", () => {
    const { definition, operation } = toolsOf(
      document(
        {
          "/things/{id}": {
            patch: {
              ...secured,
              operationId: "updateThing",
              "x-required-scope": "write",
              parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
              requestBody: {
                required: true,
                content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
              },
            },
          },
        },
        { Thing: { type: "object", properties: { id: { type: "integer" }, name: { type: "string", example: "x" } } } },
      ),
    ).get("update_thing")!;
    expect(operation.body).toBe("nested");
    expect(definition.inputSchema).toEqual({
      type: "object",
      properties: {
        id: { type: "integer" },
        body: { type: "object", properties: { id: { type: "integer" }, name: { type: "string", examples: ["x"] } } },
      },
      required: ["id", "body"],
      additionalProperties: false,
    });
    const request = toolRequest(operation, { id: 7, body: { id: 8, name: "y" } }, "https://api.example", {}) as Request;
    expect(request.url).toBe("https://api.example/api/v1/things/7");
    return expect(request.json()).resolves.toEqual({ id: 8, name: "y" });
  });

  it("gives no output schema for an answer that is not an object, and refuses a recursive schema", () => {
    const list = { ...secured, responses: { "200": { content: { "application/json": { schema: { type: "array" } } } } } };
    expect(toolsOf(document({ "/a": { get: { ...list, operationId: "listA" } } })).get("list_a")!.definition.outputSchema).toBeUndefined();
    const recursive = { Node: { type: "object", properties: { child: { $ref: "#/components/schemas/Node" } } } };
    const answer = {
      ...secured,
      responses: { "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } } } },
    };
    expect(() => toolsOf(document({ "/n": { get: { ...answer, operationId: "getNode" } } }, recursive))).toThrow(
      /recursive schema Node → Node/,
    );
  });

  it("derives the four annotations from the method and the declared effects, the method's when none are declared", () => {
    const hints = (method: string, effects?: { changes: "none" | "adds" | "changes"; reaches: ("suppliers" | "accounting")[] }) =>
      Object.values(annotationsOf(method, { "x-effects": effects }));
    // readOnly, destructive, idempotent, openWorld
    expect(hints("get")).toEqual([true, false, true, false]);
    expect(hints("post")).toEqual([false, false, false, false]);
    expect(hints("put")).toEqual([false, true, false, false]);
    expect(hints("delete")).toEqual([false, true, true, false]);
    expect(hints("get", { changes: "none", reaches: ["suppliers"] })).toEqual([true, false, true, true]);
    expect(hints("post", { changes: "changes", reaches: ["accounting"] })).toEqual([false, true, false, true]);
    expect(hints("patch", { changes: "changes", reaches: [] })).toEqual([false, true, false, false]);
  });
});
