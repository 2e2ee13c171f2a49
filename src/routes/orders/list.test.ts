import { describe, expect, it } from "vitest";
import { expectError, newCompany } from "../../../test/support/api";
import { newClient, newOrder, setCreatedAt } from "../../../test/support/orders";

describe("GET /orders", () => {
  it("lists live orders newest first with status and client names, total and balance", async () => {
    const co = await newCompany();
    const ids = await co.load({
      clients: [{ ref: "c", company_name: "Lakeside 5K Run Club" }],
      order_statuses: [{ ref: "s", name: "In production" }],
      orders: [
        {
          ref: "old",
          client_ref: "c",
          title: "Race tees",
          created_at: "2026-01-05T10:00:00Z",
          status_ref: "s",
          items: [{ ref: "i", title: "Tee", quantity: 100, unit_price: "6.25" }],
          payments: [{ ref: "p", amount: "300" }],
        },
        { ref: "new", client_ref: "c", title: "Volunteer hoodies", created_at: "2026-02-05T10:00:00Z" },
      ],
    });
    const res = await co.get("/orders");
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, per_page: 25, total: 2, next_cursor: null });
    expect(res.body.data.map((o: any) => o.id)).toEqual([ids.new, ids.old]);
    expect(res.body.data[1]).toEqual({
      id: ids.old,
      title: "Race tees",
      description: null,
      start_date: null,
      deadline: null,
      status_id: ids.s,
      client_id: ids.c,
      external_id: null,
      metadata: {},
      created_at: "2026-01-05T10:00:00.000Z",
      updated_at: "2026-01-05T10:00:00.000Z",
      status_name: "In production",
      client_name: "Lakeside 5K Run Club",
      invoice_id: expect.any(Number),
      total: "625.00",
      amount_paid: "300.00",
      balance_due: "325.00",
      deleted_at: null,
    });
    expect(res.body.data[0]).toMatchObject({ status_name: null, total: "0.00", balance_due: "0.00" });
  });

  it("pages with defaults and bounds: per_page 1–100, page from 1, past the end is empty with the total", async () => {
    const co = await newCompany();
    const clientId = await newClient(co);
    const created = [];
    for (let i = 0; i < 5; i++) created.push((await newOrder(co, { client_id: clientId, title: `Order ${i}` })).project.id);
    const newestFirst = [...created].reverse();
    const p1 = await co.get("/orders?per_page=2");
    const p3 = await co.get("/orders?per_page=2&page=3");
    expect(p1.body.data.map((o: any) => o.id)).toEqual(newestFirst.slice(0, 2));
    expect(p3.body.data.map((o: any) => o.id)).toEqual(newestFirst.slice(4));
    expect(p3.body.pagination).toEqual({ page: 3, per_page: 2, total: 5, next_cursor: null });
    const past = await co.get("/orders?per_page=2&page=9");
    expect(past.body).toEqual({ data: [], pagination: { page: 9, per_page: 2, total: 5, next_cursor: null } });
    expect((await co.get("/orders?per_page=100")).body.data).toHaveLength(5);
    for (const q of ["per_page=0", "per_page=101", "page=0", "page=-1", "per_page=abc", "page=1.5"]) {
      const err = expectError(await co.get(`/orders?${q}`), 400, "invalid_request");
      expect(err.details).toEqual([expect.objectContaining({ field: q.split("=")[0] })]);
    }
  });

  it("filters by client and status", async () => {
    const co = await newCompany();
    const ids = await co.load({
      clients: [
        { ref: "a", company_name: "A" },
        { ref: "b", company_name: "B" },
      ],
      order_statuses: [
        { ref: "quote", name: "Quote" },
        { ref: "done", name: "Done" },
      ],
      orders: [
        { ref: "o1", client_ref: "a", title: "1", status_ref: "quote" },
        { ref: "o2", client_ref: "a", title: "2", status_ref: "done" },
        { ref: "o3", client_ref: "b", title: "3", status_ref: "done" },
        { ref: "o4", client_ref: "b", title: "4" },
      ],
    });
    const idsOf = async (q: string) => ((await co.get(`/orders?${q}`)).body.data as any[]).map((o) => o.id).sort((x, y) => x - y);
    expect(await idsOf(`client_id=${ids.a}`)).toEqual([ids.o1, ids.o2]);
    expect(await idsOf(`status=${ids.done}`)).toEqual([ids.o2, ids.o3]);
    expect(await idsOf(`client_id=${ids.b}&status=${ids.done}`)).toEqual([ids.o3]);
    expect(await idsOf("client_id=2000000000")).toEqual([]);
    expectError(await co.get("/orders?client_id=abc"), 400, "invalid_request");
    expectError(await co.get("/orders?status=0"), 400, "invalid_request");
  });

  it("from/to are inclusive UTC dates on the created date: 23:59:59 on the `to` date is in, midnight after is out", async () => {
    const co = await newCompany();
    const clientId = await newClient(co);
    const at: Record<string, string> = {
      before: "2026-03-09T23:59:59.999Z",
      startOfFrom: "2026-03-10T00:00:00Z",
      endOfTo: "2026-03-12T23:59:59Z",
      lastMicro: "2026-03-12T23:59:59.999999Z",
      after: "2026-03-13T00:00:00Z",
      offsetInside: "2026-03-12T20:30:00-03:00", // 23:30 UTC on the 12th
      offsetOutside: "2026-03-12T22:30:00-03:00", // 01:30 UTC on the 13th
    };
    const ids: Record<string, number> = {};
    for (const [name, when] of Object.entries(at)) {
      ids[name] = (await newOrder(co, { client_id: clientId, title: name })).project.id;
      await setCreatedAt(ids[name], when);
    }
    const titles = async (q: string) => ((await co.get(`/orders?per_page=100&${q}`)).body.data as any[]).map((o) => o.title).sort();
    expect(await titles("from=2026-03-10&to=2026-03-12")).toEqual(["endOfTo", "lastMicro", "offsetInside", "startOfFrom"]);
    expect(await titles("from=2026-03-13")).toEqual(["after", "offsetOutside"]);
    expect(await titles("to=2026-03-09")).toEqual(["before"]);
    expect(await titles("from=2026-03-12&to=2026-03-12")).toEqual(["endOfTo", "lastMicro", "offsetInside"]);
    const list = await co.get("/orders?from=2026-03-10&to=2026-03-12&per_page=2");
    expect(list.body.pagination.total).toBe(4);
  });

  it("rejects invalid dates and from after to with 400 naming the parameter", async () => {
    const co = await newCompany();
    for (const [q, field] of [
      ["from=2026-02-30", "from"],
      ["to=2026-13-01", "to"],
      ["from=yesterday", "from"],
      ["to=2026-3-1", "to"],
      ["from=2026-03-10T00:00:00Z", "from"],
      ["from=", "from"],
      ["from=2026-03-11&to=2026-03-10", "from"],
    ]) {
      const err = expectError(await co.get(`/orders?${q}`), 400, "invalid_request");
      expect(err.details, q).toEqual([expect.objectContaining({ field })]);
    }
  });

  it("never shows another company's orders, even when filtering by its client or status", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const ids = await a.load({
      clients: [{ ref: "c", company_name: "A's client" }],
      order_statuses: [{ ref: "s", name: "Open" }],
      orders: [{ ref: "o", client_ref: "c", title: "A's order", status_ref: "s" }],
    });
    const mine = await newOrder(b);
    expect((await b.get("/orders")).body.data.map((o: any) => o.id)).toEqual([mine.project.id]);
    expect((await b.get(`/orders?client_id=${ids.c}`)).body).toEqual({
      data: [],
      pagination: { page: 1, per_page: 25, total: 0, next_cursor: null },
    });
    expect((await b.get(`/orders?status=${ids.s}`)).body).toEqual({
      data: [],
      pagination: { page: 1, per_page: 25, total: 0, next_cursor: null },
    });
    expect((await a.get("/orders")).body.data.map((o: any) => o.id)).toEqual([ids.o]);
  });
});
