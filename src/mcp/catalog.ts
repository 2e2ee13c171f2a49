import type { TokenScope } from "../db/schema/companies";
import type { Effects } from "../http/openapi";
import { type JsonSchema, toJsonSchema } from "./json-schema";

/**
 * The MCP tools: one per operation of the API's OpenAPI document, derived from the document alone, so
 * an operation added to the API is a tool without a change here. The document is built from each
 * route's own zod schemas (`createAuthRoute`), so a tool's input schema is the operation's path, query
 * and body schemas in one object, and its output schema the operation's success answer.
 */

/** Tags of operations that get no tool: webhook-endpoint management is for integrators, not assistants. */
const NOT_TOOLS = new Set(["Webhooks"]);

/** The argument that carries the `Idempotency-Key` header. */
export const IDEMPOTENCY_ARGUMENT = "idempotency_key";
/** The argument that carries the body when its fields cannot sit beside the parameters (a name taken, or not an object). */
export const BODY_ARGUMENT = "body";

/** What it takes to turn a tool's arguments into the operation's request. */
export interface Operation {
  method: string;
  /** The path template under the API prefix (`/orders/{id}/items`). */
  path: string;
  scope: TokenScope;
  pathParams: string[];
  queryParams: string[];
  /** The query parameters that take a list (repeated in the query); the others take one value. */
  listParams: string[];
  /** The operation declares `Idempotency-Key`: the tool takes `idempotency_key`. */
  idempotent: boolean;
  /** `fields`: the body's fields are arguments; `nested`: the body is the `body` argument; `none`: no body. */
  body: "fields" | "nested" | "none";
}

/** A tool as `tools/list` lists it (the MCP `Tool` shape). */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: "object" };
  outputSchema?: JsonSchema & { type: "object" };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

export interface Tool {
  definition: ToolDefinition;
  operation: Operation;
}

/** `listClients` → `list_clients`. */
export const toolName = (operationId: string) => operationId.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

type Parameter = { name: string; in: string; required?: boolean; description?: string; schema: unknown };
type OperationObject = {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  "x-required-scope"?: TokenScope;
  "x-effects"?: Effects;
};
export type OpenApiDocument = {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, unknown> };
};

const METHODS = ["get", "put", "post", "patch", "delete"];

/** Every tool of the document, by name, in the document's order. */
export function toolsOf(document: OpenApiDocument): Map<string, Tool> {
  const tools = new Map<string, Tool>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      // Public operations (health) have no token to act for; their security list is empty.
      if (!METHODS.includes(method) || !op.security?.length || op.tags?.some((t) => NOT_TOOLS.has(t))) continue;
      const tool = toolOf(document, path, method, op);
      if (tools.has(tool.definition.name)) throw new Error(`two operations make the tool ${tool.definition.name}`);
      tools.set(tool.definition.name, tool);
    }
  }
  return tools;
}

function toolOf(document: OpenApiDocument, path: string, method: string, op: OperationObject): Tool {
  const schema = (s: unknown) => toJsonSchema(s, document.components.schemas);
  const scope: TokenScope = op["x-required-scope"] ?? (method === "get" ? "read" : "write");
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const add = (name: string, s: JsonSchema, isRequired: boolean, description?: string) => {
    properties[name] = description && !s.description ? { ...s, description } : s;
    if (isRequired) required.push(name);
  };
  const params = (where: string) => (op.parameters ?? []).filter((p) => p.in === where);
  for (const p of [...params("path"), ...params("query")])
    add(p.name, schema(p.schema), p.in === "path" || Boolean(p.required), p.description);
  const idempotent = params("header").some((p) => p.name.toLowerCase() === "idempotency-key");
  if (idempotent) {
    const header = params("header").find((p) => p.name.toLowerCase() === "idempotency-key")!;
    add(IDEMPOTENCY_ARGUMENT, schema(header.schema), false, header.description);
  }
  // Conditional-request headers (If-Match, If-None-Match) are HTTP caching; a tool always acts on the current row.

  let body: Operation["body"] = "none";
  const bodySchema = op.requestBody?.content["application/json"]?.schema;
  if (bodySchema) {
    const s = schema(bodySchema);
    const fields = s.type === "object" && s.properties ? (s.properties as Record<string, JsonSchema>) : undefined;
    if (fields && !Object.keys(fields).some((name) => name in properties)) {
      body = "fields";
      const requiredFields = new Set((s.required as string[] | undefined) ?? []);
      for (const [name, field] of Object.entries(fields)) add(name, field, requiredFields.has(name));
    } else {
      body = "nested";
      add(BODY_ARGUMENT, s, Boolean(op.requestBody?.required));
    }
  }

  const success = Object.entries(op.responses).find(([status]) => status.startsWith("2"))?.[1];
  const answer = success?.content?.["application/json"]?.schema;
  const output = answer === undefined ? undefined : objectSchema(schema(answer));
  const name = toolName(op.operationId);
  return {
    definition: {
      name,
      title: op.summary ?? name,
      description: describe(op, method, idempotent),
      inputSchema: { type: "object", properties, ...(required.length ? { required } : {}), additionalProperties: false },
      ...(output ? { outputSchema: output } : {}),
      annotations: annotationsOf(method, op),
    },
    operation: {
      method: method.toUpperCase(),
      path,
      scope,
      pathParams: params("path").map((p) => p.name),
      queryParams: params("query").map((p) => p.name),
      listParams: params("query")
        .filter((p) => schema(p.schema).type === "array")
        .map((p) => p.name),
      idempotent,
      body,
    },
  };
}

/**
 * The MCP tool annotations, from what the operation is: its method and the effects its route declares
 * (`x-effects`, which `createAuthRoute` writes for every operation). Hints a client may rely on, so
 * each says only what holds for every call:
 * - `readOnlyHint`: a GET, which changes nothing.
 * - `destructiveHint`: a write that may change or remove what exists (PATCH, PUT, DELETE, and a POST
 *   that declares it does, such as a batch's updates); a POST that only adds is not destructive.
 * - `idempotentHint`: GET and DELETE, whose repeat with the same arguments changes nothing more
 *   (`annotations.test.ts` runs every tool twice to check it: a second delete finds nothing to delete).
 *   Not PUT or PATCH: their repeat leaves the same data but records another `*.updated` event (sent to
 *   the company's webhooks) and a new `updated_at`. Not a create, though it takes `idempotency_key`:
 *   the key makes a retry safe only when the caller passes it, and the same arguments without it
 *   create twice.
 * - `openWorldHint`: the operation reaches a third party (a supplier, the company's accounting).
 * An operation without `x-effects` (a document not made by `createAuthRoute`) gets the method's.
 */
export function annotationsOf(method: string, op: Pick<OperationObject, "x-effects">): ToolDefinition["annotations"] {
  const effects = op["x-effects"] ?? { changes: method === "get" ? "none" : method === "post" ? "adds" : "changes", reaches: [] };
  return {
    readOnlyHint: effects.changes === "none",
    destructiveHint: effects.changes === "changes",
    idempotentHint: effects.changes === "none" || method === "delete",
    openWorldHint: effects.reaches.length > 0,
  };
}

/**
 * The answer's schema as an MCP output schema, which must say `type: "object"`: added beside an
 * `anyOf` of objects (a product from one of three sources). Undefined for an answer that is not an
 * object; such a tool answers with text only.
 */
function objectSchema(s: JsonSchema): (JsonSchema & { type: "object" }) | undefined {
  return describesObject(s) ? { ...s, type: "object" } : undefined;
}

const describesObject = (s: JsonSchema): boolean =>
  s.type === "object" ||
  ((s.allOf as JsonSchema[] | undefined)?.some(describesObject) ?? false) ||
  ((s.anyOf ?? s.oneOf) as JsonSchema[] | undefined)?.every(describesObject) === true;

/**
 * A tool's description for an assistant: what the operation does (its summary and description, without
 * the scope sentence, which the tool list already reflects), then what calling it means.
 */
function describe(op: OperationObject, method: string, idempotent: boolean): string {
  const text = (op.description ?? "").replace(/(^|\n)Scope: `(read|write)`[^\n]*$/, "").trim();
  const lines = [`${op.summary ?? op.operationId}.`, text];
  if (method === "get") lines.push("Reads only; changes nothing.");
  else lines.push("Changes the company's data: call it when the user asked for this change.");
  if (idempotent)
    lines.push(
      `Pass \`${IDEMPOTENCY_ARGUMENT}\` (a new UUID for each intended change, the same one only to retry this call) so that a ` +
        "retry after a lost answer returns the first answer instead of writing twice.",
    );
  return lines.filter(Boolean).join("\n\n");
}
