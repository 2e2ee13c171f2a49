import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { type ApiResponse, call, newCompany } from "./support/api";
import { inRunnableOrder, type Operation, populated, tokenOperations } from "./support/operations";

/**
 * Checks an answer against what the OpenAPI document (and so the generated SDK) promises for its
 * operation: the status is one the operation documents, the body matches that status's JSON schema,
 * and every header documented as required is there.
 */
async function documentChecker() {
  const doc = (await call("GET", "/openapi.json")).body;
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; `example` and the like are annotations, not errors.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi.json");
  const compiled = new Map<string, ValidateFunction>();
  return ({ path, method, op }: Operation, res: ApiResponse) => {
    const what = `${method.toUpperCase()} ${path} → ${res.status}`;
    const response = op.responses[String(res.status)];
    expect(response, `${what}: a status the document lists (${Object.keys(op.responses)})`).toBeDefined();
    for (const [name, header] of Object.entries<{ required?: boolean }>(response.headers ?? {})) {
      if (header.required) expect(res.headers.has(name), `${what}: header ${name}`).toBe(true);
    }
    const schema = response.content?.["application/json"]?.schema;
    if (!schema) {
      expect(res.body, `${what}: no body`).toBe("");
      return;
    }
    // The operation's schema refers to the document's components: resolved inside the document.
    const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/');
    let validate = compiled.get(text);
    if (!validate) {
      validate = ajv.compile(JSON.parse(text));
      compiled.set(text, validate);
    }
    expect(validate(res.body) ? [] : validate.errors, `${what}: ${JSON.stringify(res.body).slice(0, 300)}`).toEqual([]);
  };
}

describe("every answer matches the OpenAPI document", () => {
  it("on every operation: success, 400 for a refused body, 401 without a token, 404 for another company's row", async () => {
    const conforms = await documentChecker();
    const a = await newCompany();
    const b = await newCompany();
    const { concrete, missing, body, wrongBody } = await populated(a);
    const operations = await tokenOperations();
    const send = (operation: Operation, token: string | null, url = concrete(operation), sent = body(operation)) =>
      call(operation.method.toUpperCase(), url, { token, body: sent });

    // The error answers first, while every row of the fixture exists.
    const statuses = new Set<number>();
    for (const operation of operations) {
      const answers = [await send(operation, null)];
      if (concrete(operation) !== missing(operation) && operation.method !== "put") answers.push(await send(operation, b.token));
      if (operation.op.requestBody) answers.push(await send(operation, a.token, concrete(operation), wrongBody(operation).body));
      for (const res of answers) {
        conforms(operation, res);
        statuses.add(res.status);
      }
    }
    expect([...statuses].sort()).toEqual([400, 401, 404]);

    for (const operation of inRunnableOrder(operations)) {
      const res = await send(operation, a.token);
      expect(res.status, `${operation.method.toUpperCase()} ${operation.path}: ${JSON.stringify(res.body)}`).toBe(200);
      conforms(operation, res);
    }
  });
});
