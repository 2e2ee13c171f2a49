import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { call, newCompany } from "./support/api";
import { documentChecker, inRunnableOrder, type Operation, populated, requestChecker, tokenOperations } from "./support/operations";
import { newClient, newOrder } from "./support/orders";

describe("every answer matches the OpenAPI document", () => {
  it("on every operation: success, 400 for a refused body, 401 without a token, 404 for another company's row", async () => {
    const conforms = await documentChecker();
    const a = await newCompany();
    const b = await newCompany();
    const { concrete, addressesRow, body, wrongBody } = await populated(a);
    const operations = await tokenOperations();
    const send = (operation: Operation, token: string | null, url = concrete(operation), sent = body(operation)) =>
      call(operation.method.toUpperCase(), url, { token, body: sent });

    // The error answers first, while every row of the fixture exists.
    const statuses = new Set<number>();
    for (const operation of operations) {
      const answers = [await send(operation, null)];
      if (addressesRow(operation) && operation.method !== "put") answers.push(await send(operation, b.token));
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

  it("on every operation: an external id another row has, a batch with a bad item, a list of values in one query parameter", async () => {
    const conforms = await documentChecker();
    const accepted = await requestChecker();
    const doc = (await call("GET", "/openapi.json")).body;
    const a = await newCompany();
    const { concrete, body } = await populated(a);
    const operations = await tokenOperations();
    const send = (operation: Operation, url: string, sent: unknown) =>
      call(operation.method.toUpperCase(), url, { token: a.token, body: sent });
    const resolved = (schema: any): any => (schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema);
    const bodySchema = ({ op }: Operation) => resolved(op.requestBody?.content?.["application/json"]?.schema);

    // A body giving the external id another row of the resource has: the conflict is a status the operation documents.
    const taken: Record<string, string> = { clients: `taken-${randomUUID()}`, orders: `taken-${randomUUID()}` };
    await newOrder(a, { external_id: taken.orders, client_id: await newClient(a, { external_id: taken.clients }) });
    const conflicts = new Map<string, number>();
    for (const operation of operations.filter((o) => bodySchema(o)?.properties?.external_id)) {
      const resource = operation.path.split("/")[1];
      expect(taken[resource], `${operation.path}: a row of its resource with an external id`).toBeDefined();
      const res = await send(operation, concrete(operation), { ...(body(operation) as object), external_id: taken[resource] });
      conforms(operation, res);
      conflicts.set(`${operation.method} ${operation.path}`, res.status);
    }
    expect(conflicts.get("patch /orders/{id}")).toBe(409);
    expect(conflicts.get("patch /clients/{id}")).toBe(409);

    // A batch is answered item by item: one bad item does not refuse the body, so the document must not either.
    const batches = operations.filter((o) => bodySchema(o)?.properties?.items && bodySchema(o)?.properties?.atomic);
    expect(batches.length).toBeGreaterThan(0);
    for (const operation of batches) {
      const valid = body(operation) as { items: unknown[] };
      const sent = { items: [...valid.items, { method: "create", data: { unknown_field: true } }, "not an item"] };
      const res = await send(operation, concrete(operation), sent);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.map((r: { status: number }) => r.status)).toEqual([200, 400, 400]);
      conforms(operation, res);
      accepted(operation, { body: sent });
    }

    // An array query parameter given as one comma-separated value, where the API accepts it, is valid by the document too.
    let lists = 0;
    for (const operation of operations.filter((o) => o.method === "get")) {
      for (const param of operation.op.parameters ?? []) {
        if (param.in !== "query" || param.schema?.type !== "array") continue;
        const values: string[] = param.schema.items.enum ?? param.schema.items.anyOf?.find((s: any) => s.enum)?.enum ?? [];
        if (values.length < 2) continue;
        const url = concrete(operation);
        const value = `${values[0]},${values[1]}`;
        const res = await call("GET", `${url}${url.includes("?") ? "&" : "?"}${param.name}=${encodeURIComponent(value)}`, {
          token: a.token,
        });
        conforms(operation, res);
        if (res.status !== 200) continue;
        accepted(operation, { query: { [param.name]: [value] } });
        lists++;
      }
    }
    expect(lists).toBeGreaterThan(0);
  });
});
