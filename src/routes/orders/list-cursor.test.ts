import { describe, expect, it } from "vitest";
import { type ApiResponse, expectError, newCompany, sql, type TestCompany } from "../../../test/support/api";
import { newClient, newOrder, setCreatedAt } from "../../../test/support/orders";

async function walk(co: TestCompany, path: string, between: (page: number) => Promise<void> = async () => {}) {
  const ids: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: ApiResponse = await co.get(cursor ? `${path}&cursor=${cursor}` : path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.data.map((o: any) => o.id));
    cursor = res.body.pagination.next_cursor;
    await between(++pages);
    if (pages > 50) throw new Error("cursor walk does not end");
  } while (cursor);
  return ids;
}

describe("GET /orders with cursors", () => {
  it("walks newest first across equal and microsecond-apart created_at, stable under creates and deletes", async () => {
    const co = await newCompany();
    const clientId = await newClient(co);
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push((await newOrder(co, { client_id: clientId, title: `Order ${i}` })).project.id);
    // Three share one instant, two sit one microsecond apart: the key keeps microseconds and breaks ties by id.
    for (const id of ids.slice(0, 3)) await setCreatedAt(id, "2026-03-01T10:00:00.000001Z");
    await setCreatedAt(ids[3], "2026-03-01T10:00:00.000002Z");
    await setCreatedAt(ids[4], "2026-03-01T10:00:00.000000Z");
    const expected = [ids[6], ids[5], ids[3], ids[2], ids[1], ids[0], ids[4]];
    expect(await walk(co, "/orders?per_page=2")).toEqual(expected);

    let late = 0;
    const seen = await walk(co, "/orders?per_page=2", async (page) => {
      if (page !== 1) return;
      expect((await co.del(`/orders/${ids[1]}`)).status).toBe(200); // not yet seen: skipped
      late = (await newOrder(co, { client_id: clientId })).project.id; // newer than the walk's position: not seen
    });
    expect(seen).toEqual(expected.filter((id) => id !== ids[1]));
    expect(late).toBeGreaterThan(0);
    expect((await co.get("/orders")).body.pagination.total).toBe(7);
  });

  it("binds a cursor to its filters and company", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const clientId = await newClient(a);
    for (let i = 0; i < 3; i++) await newOrder(a, { client_id: clientId });
    await newOrder(b);
    const res = await a.get(`/orders?per_page=1&client_id=${clientId}`);
    expect(res.body.pagination).toMatchObject({ total: 3, next_cursor: expect.any(String) });
    const cursor = res.body.pagination.next_cursor;
    expect((await a.get(`/orders?per_page=1&client_id=${clientId}&cursor=${cursor}`)).body.data).toHaveLength(1);
    for (const [co, path] of [
      [a, `/orders?per_page=1&cursor=${cursor}`],
      [a, `/orders?per_page=1&client_id=${clientId}&from=2020-01-01&cursor=${cursor}`],
      [b, `/orders?per_page=1&client_id=${clientId}&cursor=${cursor}`],
      [a, `/orders?page=2&client_id=${clientId}&cursor=${cursor}`],
      [a, "/orders?cursor=bm9wZQ"],
    ] as const) {
      const err = expectError(await co.get(path), 400, "invalid_request");
      expect(err.details).toEqual([expect.objectContaining({ field: "cursor" })]);
    }
  });

  it("keeps totals exact under concurrent creates and deletes, filtered or not", async () => {
    const co = await newCompany();
    const clientId = await newClient(co);
    const first = await Promise.all(Array.from({ length: 6 }, () => newOrder(co, { client_id: clientId })));
    await Promise.all([
      ...Array.from({ length: 6 }, () => newOrder(co)),
      ...first.slice(0, 4).map((o) => co.del(`/orders/${o.project.id}`)),
    ]);
    const [{ n }] = await sql<{ n: number }>("select count(*)::int n from projects where company_id = $1 and deleted_at is null", [
      co.companyId,
    ]);
    expect(n).toBe(8);
    expect((await co.get("/orders")).body.pagination.total).toBe(8);
    expect((await co.get(`/orders?client_id=${clientId}`)).body.pagination.total).toBe(2);
  });

  it("keeps the status filter's total exact while orders change status, are deleted, or are another company's", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const ids = await a.load({
      clients: [{ ref: "c", company_name: "C" }],
      order_statuses: [
        { ref: "quote", name: "Quote" },
        { ref: "done", name: "Done" },
      ],
      orders: Array.from({ length: 6 }, (_, i) => ({
        ref: `o${i}`,
        client_ref: "c",
        title: `O${i}`,
        status_ref: i < 4 ? "quote" : "done",
      })),
    });
    const totals = async () => [
      (await a.get(`/orders?status=${ids.quote}`)).body.pagination.total,
      (await a.get(`/orders?status=${ids.done}`)).body.pagination.total,
    ];
    expect(await totals()).toEqual([4, 2]);
    await Promise.all([
      a.patch(`/orders/${ids.o0}`, { status_id: ids.done }),
      a.patch(`/orders/${ids.o1}`, { status_id: ids.done }),
      a.del(`/orders/${ids.o2}`),
      a.del(`/orders/${ids.o4}`),
      a.post("/orders", { title: "New", client_id: ids.c }),
    ]);
    expect(await totals()).toEqual([1, 3]);
    const quoteRows = (await a.get(`/orders?status=${ids.quote}`)).body.data.map((o: any) => o.id);
    expect(quoteRows).toEqual([ids.o3]);
    // Another company filtering by A's status id sees nothing, total included.
    expect((await b.get(`/orders?status=${ids.done}`)).body.pagination.total).toBe(0);
    // The status filter with another filter is counted from the rows: the same answer.
    expect((await a.get(`/orders?status=${ids.done}&client_id=${ids.c}`)).body.pagination.total).toBe(3);
  });
});
