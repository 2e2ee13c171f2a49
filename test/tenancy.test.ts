import { describe, expect, it } from "vitest";
import { asRequest, call, newCompany } from "./support/api";
import { companyRows, populated, tokenOperations } from "./support/operations";

/** The answer as a caller sees it, for comparing two of them. */
const seen = (res: Awaited<ReturnType<typeof call>>) => ({ status: res.status, body: res.body });

describe("tenancy, on every operation of the document", () => {
  it("company B's token addressing company A's rows gets the answer for rows that do not exist, and changes none of A's rows", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { concrete, missing, addressesRow, body } = await populated(a);
    const operations = await tokenOperations();
    const before = await companyRows(a.companyId);
    // Operations that address a row by an id (in the path or the query); PUTs last, since B's PUT
    // stores a row of B's own under A's id (a thread, an external id), which B's GET would then find.
    const addressing = operations.filter(addressesRow).sort((x, y) => Number(x.method === "put") - Number(y.method === "put"));
    expect(addressing.length).toBeGreaterThanOrEqual(24);
    for (const operation of addressing) {
      const { path, method } = operation;
      const what = `${method.toUpperCase()} ${path}`;
      // One request id for both: an error body carries it, and everything else must be the same.
      const send = (url: string) =>
        call(method.toUpperCase(), url, asRequest(`tenancy-${operation.op.operationId}`, { token: b.token, body: body(operation) }));
      const foreign = await send(concrete(operation));
      const absent = await send(missing(operation));
      if (method === "put") {
        // PUT stores B's own row under that id (or refuses B's body, A's client id in it, alike):
        // the same answer either way, nothing of A's touched.
        expect(foreign.status, `${what}: ${JSON.stringify(foreign.body)}`).toBe(absent.status);
        expect(foreign.status, what).toBeLessThan(500);
      } else {
        expect(seen(foreign), what).toEqual(seen(absent));
        expect(foreign.status, `${what}: ${JSON.stringify(foreign.body)}`).toBe(404);
      }
    }
    expect(await companyRows(a.companyId)).toEqual(before);
    // And A's own token reaches each of those rows.
    for (const operation of addressing.filter(({ method }) => method === "get")) {
      expect((await call("GET", concrete(operation), { token: a.token })).status, operation.path).toBe(200);
    }
  });

  it("company B never lists or finds company A's rows: every GET that addresses no row answers B without them, A with them", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { concrete, addressesRow, marker } = await populated(a);
    const listings = (await tokenOperations()).filter((operation) => operation.method === "get" && !addressesRow(operation));
    expect(listings.map(({ op }) => op.operationId).sort()).toEqual([
      "getMe",
      "listClients",
      "listEvents",
      "listOrders",
      "listRequestLogs",
      "listStatuses",
      "listTaxes",
      "listWebhookEndpoints",
      "searchProducts",
    ]);
    // What an answer shows of the company's rows (a search echoes its query: left out).
    const shown = (body: Record<string, unknown>) => JSON.stringify({ ...body, query: undefined });
    for (const operation of listings) {
      const what = `GET ${concrete(operation)}`;
      const mine = await call("GET", concrete(operation), { token: a.token });
      expect(mine.status, what).toBe(200);
      expect(shown(mine.body), what).toContain(marker);
      const theirs = await call("GET", concrete(operation), { token: b.token });
      expect(theirs.status, what).toBe(200);
      expect(shown(theirs.body), what).not.toContain(marker);
    }
  });
});
