import { describe, expect, it } from "vitest";
import { apiUrl, newCompany } from "../test/support/api";
import { CrmApiError, createCrmClient, listAll, type Schemas } from "./index";

/** The SDK against the real Worker in workerd: the runnable part of the example in docs/sdk.md. */
describe("typed client (sdk/)", () => {
  it("creates a client and an order, then lists both by cursor", async () => {
    const { token } = await newCompany();
    const crm = createCrmClient({ baseUrl: apiUrl(), token });

    const created = await crm.POST("/clients", { body: { company_name: "Northside Print Co.", email: "maya@northside.example" } });
    expect(created.response.status).toBe(200);
    const client: Schemas["Client"] = created.data!.client;
    expect(client.company_name).toBe("Northside Print Co.");

    // A retry with the same Idempotency-Key answers the first result instead of creating a second order.
    const orderRequest = {
      body: { client_id: client.id, title: "Spring league jerseys" },
      headers: { "Idempotency-Key": crypto.randomUUID() },
    };
    const order = await crm.POST("/orders", orderRequest);
    expect(order.error).toBeUndefined();
    const retried = await crm.POST("/orders", orderRequest);
    expect(retried.response.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retried.data).toEqual(order.data);
    expect(order.data!.project.client_id).toBe(client.id);
    expect(order.data!.invoice.totals.total).toBe("0.00");

    const fetched = await crm.GET("/orders/{id}", { params: { path: { id: order.data!.project.id } } });
    expect(fetched.data!.project.title).toBe("Spring league jerseys");

    const orders = [];
    for await (const o of listAll(crm, "/orders", { client_id: client.id })) orders.push(o);
    expect(orders.map((o) => o.id)).toEqual([order.data!.project.id]);
    expect(orders[0]!.client_name).toBe("Northside Print Co.");
  });

  it("keeps a copy current with updated_since and include_deleted, resuming from next_updated_since", async () => {
    const { token } = await newCompany();
    const crm = createCrmClient({ baseUrl: apiUrl(), token });
    /** One sync pass, as in docs/sdk.md: follow next_cursor to the end, then keep next_updated_since. */
    const sync = async (since: string) => {
      const seen: Schemas["Client"][] = [];
      let cursor: string | undefined;
      for (;;) {
        const { data, error } = await crm.GET("/clients", {
          params: { query: { updated_since: since, include_deleted: "true", per_page: 1, cursor } },
        });
        if (error) throw new Error(error.error.message);
        seen.push(...data.data);
        if (!data.pagination.next_cursor) return { seen, next: data.pagination.next_updated_since! };
        cursor = data.pagination.next_cursor;
      }
    };
    // Rows changed in the last 2 s are left for the next pass (a transaction may still commit behind them).
    const settle = () => new Promise((r) => setTimeout(r, 2_500));

    const kept = (await crm.POST("/clients", { body: { company_name: "Kept Co." } })).data!.client;
    const gone = (await crm.POST("/clients", { body: { company_name: "Gone Co." } })).data!.client;
    await crm.PATCH("/clients/{id}", { params: { path: { id: gone.id } }, body: { deleted: true } });
    await settle();
    const first = await sync("2000-01-01T00:00:00.000Z");
    expect(first.seen.map((c) => [c.id, c.deleted_at === null])).toEqual([
      [kept.id, true],
      [gone.id, false],
    ]);

    await crm.PATCH("/clients/{id}", { params: { path: { id: kept.id } }, body: { company_name: "Kept Co. (renamed)" } });
    await settle();
    const second = await sync(first.next);
    expect(second.seen.map((c) => [c.id, c.company_name])).toEqual([[kept.id, "Kept Co. (renamed)"]]);
    expect((await sync(second.next)).seen).toEqual([]);
  }, 30_000);

  it("listAll follows next_cursor to the last page, with the filters on every page", async () => {
    const { token } = await newCompany();
    const crm = createCrmClient({ baseUrl: `${apiUrl()}/`, token });
    const ids: number[] = [];
    for (const n of [1, 2, 3, 4, 5]) {
      const { data } = await crm.POST("/clients", { body: { company_name: `Paged ${n} ${n % 2 ? "odd" : "even"}` } });
      ids.push(data!.client.id);
    }
    const seen = [];
    for await (const c of listAll(crm, "/clients", { per_page: 2 })) seen.push(c.id);
    expect(seen).toEqual(ids);

    const odd = [];
    for await (const c of listAll(crm, "/clients", { per_page: 1, q: "odd" })) odd.push(c.id);
    expect(odd).toEqual([ids[0], ids[2], ids[4]]);
  });

  it("sends every request with the bearer token through a caller's fetch", async () => {
    const { token } = await newCompany();
    const seen: Request[] = [];
    const crm = createCrmClient({
      baseUrl: apiUrl(),
      token,
      fetch: (request) => {
        seen.push(request.clone());
        return fetch(request);
      },
    });
    const { response } = await crm.GET("/clients", { params: { query: { per_page: 1 } } });
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers.get("authorization")).toBe(`Bearer ${token}`);
    expect(new URL(seen[0]!.url).pathname).toBe("/api/v1/clients");
    expect(new URL(seen[0]!.url).searchParams.get("per_page")).toBe("1");
  });

  it("answers another company's client as not found, in the typed error", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const crmA = createCrmClient({ baseUrl: apiUrl(), token: a.token });
    const crmB = createCrmClient({ baseUrl: apiUrl(), token: b.token });
    const { data } = await crmA.POST("/clients", { body: { company_name: "Only A's" } });

    const other = await crmB.GET("/clients/{id}", { params: { path: { id: String(data!.client.id) } } });
    const missing = await crmB.GET("/clients/{id}", { params: { path: { id: "2147483647" } } });
    expect(other.data).toBeUndefined();
    expect(other.response.status).toBe(404);
    expect(other.error!.error.code).toBe("not_found");
    expect(other.error!.error.message).toBe(missing.error!.error.message);

    const listedByB = [];
    for await (const c of listAll(crmB, "/clients")) listedByB.push(c.id);
    expect(listedByB).not.toContain(data!.client.id);
  });

  it("listAll throws CrmApiError with the status, the error body and the request id", async () => {
    const { token } = await newCompany();
    const crm = createCrmClient({ baseUrl: apiUrl(), token });
    const tooLong = await listAll(crm, "/clients", { q: "x".repeat(201) })
      .next()
      .catch((e: unknown) => e);
    expect(tooLong).toBeInstanceOf(CrmApiError);
    const err = tooLong as CrmApiError;
    expect(err.status).toBe(400);
    expect(err.body!.error.code).toBe("invalid_request");
    expect(err.body!.error.details).toEqual([expect.objectContaining({ field: "q" })]);
    expect(err.requestId).toMatch(/.+/);

    const badToken = createCrmClient({ baseUrl: apiUrl(), token: "0".repeat(64) });
    const refused = await listAll(badToken, "/orders")
      .next()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CrmApiError);
    expect((refused as CrmApiError).status).toBe(401);
    expect((refused as CrmApiError).body!.error.code).toBe("unauthenticated");
  });
});
