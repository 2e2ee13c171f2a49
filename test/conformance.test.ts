import { describe, expect, it } from "vitest";
import { call, newCompany } from "./support/api";
import { documentChecker, inRunnableOrder, type Operation, populated, tokenOperations } from "./support/operations";

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
});
