import { describe, expect, it } from "vitest";
import { type ApiResponse, expectError, newCompany, sql, type TestCompany } from "../../../test/support/api";
import { newClient, newOrder, setCreatedAt } from "../../../test/support/orders";

/** Every id of a cursor walk over `path` (per_page in it), in the order the pages gave them. */
async function walk(co: TestCompany, path: string) {
  const ids: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: ApiResponse = await co.get(cursor ? `${path}&cursor=${cursor}` : path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.data.map((o: { id: number }) => o.id));
    cursor = res.body.pagination.next_cursor;
    if (++pages > 60) throw new Error("cursor walk does not end");
  } while (cursor);
  return ids;
}
const idsOf = async (co: TestCompany, path: string) => {
  const res = await co.get(path);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ids: res.body.data.map((o: { id: number }) => o.id) as number[], total: res.body.pagination.total as number };
};

/** An order with these line amounts (one line each) and payments. */
async function orderWith(co: TestCompany, clientId: number, lines: string[], payments: string[], patch: Record<string, unknown> = {}) {
  const { project } = await newOrder(co, { client_id: clientId });
  for (const unit_price of lines) expect((await co.post(`/orders/${project.id}/items`, { title: "Line", unit_price })).status).toBe(200);
  for (const amount of payments) expect((await co.post(`/orders/${project.id}/payments`, { amount })).status).toBe(200);
  if (Object.keys(patch).length) expect((await co.patch(`/orders/${project.id}`, patch)).status).toBe(200);
  return project.id as number;
}

describe("GET /orders?payment_status=", () => {
  it("unpaid: nothing paid and a total above 0; partial; paid: payments cover the total (a total of 0 included); it follows every change", async () => {
    const co = await newCompany();
    const clientId = await newClient(co);
    const tax: number = (await co.post("/taxes", { name: "Tax", rate: "10" })).body.tax.id;
    const empty = await orderWith(co, clientId, [], []);
    const unpaid = await orderWith(co, clientId, ["100.00"], []);
    const partial = await orderWith(co, clientId, ["100.00"], ["40.00"]);
    const paid = await orderWith(co, clientId, ["100.00"], ["100.00"]);
    const over = await orderWith(co, clientId, ["100.00"], ["150.00"]);
    // 100.00 − 10 % + 10 % tax on 90.00 = 99.00: paid exactly, and one cent short.
    const exact = await orderWith(co, clientId, ["100.00"], ["99.00"], {
      tax_id: tax,
      discount_amount: "10",
      discount_amount_type: "percentage",
    });
    const short = await orderWith(co, clientId, ["100.00"], ["98.99"], {
      tax_id: tax,
      discount_amount: "10",
      discount_amount_type: "percentage",
    });
    const expected = { unpaid: [unpaid], partial: [short, partial], paid: [exact, over, paid, empty] };
    for (const [status, ids] of Object.entries(expected)) {
      expect(await idsOf(co, `/orders?payment_status=${status}`), status).toEqual({ ids, total: ids.length });
      // The same through the count (another filter beside it) as through the counters (alone).
      expect((await idsOf(co, `/orders?payment_status=${status}&client_id=${clientId}`)).total, status).toBe(ids.length);
    }

    // It follows the totals' inputs: a payment removed, a discount, tax-exempt, the tax's rate.
    const payment = (await co.get(`/orders/${partial}`)).body.payments[0].id;
    expect((await co.del(`/orders/${partial}/payments/${payment}`)).status).toBe(200);
    expect((await co.patch(`/orders/${short}`, { tax_exempt: true })).status).toBe(200); // total 90.00 now
    expect((await co.patch(`/orders/${unpaid}`, { discount_amount: "100", discount_amount_type: "percentage" })).status).toBe(200);
    expect((await co.patch(`/taxes/${tax}`, { rate: "12" })).status).toBe(200); // exact: 90.00 + 10.80
    expect((await idsOf(co, "/orders?payment_status=unpaid")).ids).toEqual([partial]);
    expect((await idsOf(co, "/orders?payment_status=partial")).ids).toEqual([exact]);
    expect((await idsOf(co, "/orders?payment_status=paid")).ids).toEqual([short, over, paid, unpaid, empty]);
    // A deleted order leaves the counts.
    expect((await co.del(`/orders/${over}`)).status).toBe(200);
    expect((await idsOf(co, "/orders?payment_status=paid")).total).toBe(4);
    expectError(await co.get("/orders?payment_status=overdue"), 400, "invalid_request");
  });
});

describe("GET /orders?status= with several ids", () => {
  it("lists the orders with any of the statuses, newest first, with the total; a cursor walks them all; at most 20 ids", async () => {
    const co = await newCompany();
    const clientId = await newClient(co);
    const ids = await co.load({
      order_statuses: [
        { ref: "a", name: "A" },
        { ref: "b", name: "B" },
        { ref: "c", name: "C" },
      ],
    });
    const orders: { id: number; status: number }[] = [];
    for (let i = 0; i < 9; i++) {
      const status = [ids.a, ids.b, ids.c][i % 3];
      const { project } = await newOrder(co, { client_id: clientId });
      expect((await co.patch(`/orders/${project.id}`, { status_id: status })).status).toBe(200);
      orders.push({ id: project.id, status });
    }
    // Two share one instant: the id breaks the tie.
    await setCreatedAt(orders[3].id, "2026-05-01T00:00:00Z");
    await setCreatedAt(orders[4].id, "2026-05-01T00:00:00Z");
    const expected = orders
      .filter((o) => o.status !== ids.c)
      .map((o) => o.id)
      .sort((x, y) => {
        const at = (id: number) => (id === orders[3].id || id === orders[4].id ? 0 : 1);
        return at(y) - at(x) || y - x;
      });
    expect(await idsOf(co, `/orders?status=${ids.a},${ids.b}`)).toEqual({ ids: expected, total: 6 });
    expect(await idsOf(co, `/orders?status=${ids.b},${ids.a},${ids.a}`)).toEqual({ ids: expected, total: 6 });
    expect(await walk(co, `/orders?status=${ids.a},${ids.b}&per_page=2`)).toEqual(expected);
    // Pages by number too, and the same total through the count path (a second filter).
    expect((await idsOf(co, `/orders?status=${ids.a},${ids.b}&per_page=2&page=2`)).ids).toEqual(expected.slice(2, 4));
    expect((await idsOf(co, `/orders?status=${ids.a},${ids.b}&client_id=${clientId}`)).total).toBe(6);
    expect((await idsOf(co, `/orders?status=${ids.c}`)).ids).toEqual(
      orders
        .filter((o) => o.status === ids.c)
        .map((o) => o.id)
        .reverse(),
    );
    const many = Array.from({ length: 21 }, (_, i) => i + 1).join(",");
    for (const bad of [many, "3,x", "0", "3,,5", " 3", "2147483648", ""]) {
      const err = expectError(await co.get(`/orders?status=${encodeURIComponent(bad)}`), 400, "invalid_request");
      expect(err.details[0].field, bad).toBe("status");
    }
    expect((await co.get(`/orders?status=${Array.from({ length: 20 }, (_, i) => i + 1).join(",")}`)).status).toBe(200);
  });
});

describe("GET /orders?deadline_from=&deadline_to= and sort=", () => {
  async function deadlines(co: TestCompany) {
    const clientId = await newClient(co);
    const made: { id: number; deadline: string | null }[] = [];
    for (const deadline of ["2026-12-05", null, "2026-12-01", "2026-12-05", "2027-01-10", null, "2026-11-30"]) {
      const { project } = await newOrder(co, { client_id: clientId });
      if (deadline) expect((await co.patch(`/orders/${project.id}`, { deadline })).status).toBe(200);
      made.push({ id: project.id, deadline });
    }
    return made;
  }

  it("the deadline range is inclusive at both ends and leaves out orders without a deadline", async () => {
    const co = await newCompany();
    const made = await deadlines(co);
    const within = (from: string, to: string) =>
      made
        .filter((o) => o.deadline && o.deadline >= from && o.deadline <= to)
        .map((o) => o.id)
        .reverse();
    expect(await idsOf(co, "/orders?deadline_from=2026-12-01&deadline_to=2026-12-05")).toEqual({
      ids: within("2026-12-01", "2026-12-05"),
      total: 3,
    });
    expect((await idsOf(co, "/orders?deadline_from=2026-12-02")).ids).toEqual(within("2026-12-02", "9999-12-31"));
    expect((await idsOf(co, "/orders?deadline_to=2026-11-30")).ids).toEqual(within("0001-01-01", "2026-11-30"));
    const err = expectError(await co.get("/orders?deadline_from=2026-12-06&deadline_to=2026-12-05"), 400, "invalid_request");
    expect(err.details[0].field).toBe("deadline_from");
    expect(expectError(await co.get("/orders?deadline_to=2026-02-30"), 400, "invalid_request").details[0].field).toBe("deadline_to");
  });

  it("each sort orders the list (deadline nulls last both ways, ties by id), and a cursor walk gives the same order", async () => {
    const co = await newCompany();
    const made = await deadlines(co);
    const ids = made.map((o) => o.id);
    // Created times in another order than the ids, and one order changed last.
    for (const [i, at] of ["2026-01-07", "2026-01-03", "2026-01-05", "2026-01-01", "2026-01-06", "2026-01-02", "2026-01-04"].entries()) {
      await setCreatedAt(ids[i], `${at}T12:00:00Z`);
    }
    expect((await co.patch(`/orders/${ids[3]}`, { title: "Changed last" })).status).toBe(200);
    const day = (o: { id: number }) => ["07", "03", "05", "01", "06", "02", "04"][ids.indexOf(o.id)];
    const byCreated = [...made].sort((x, y) => day(x).localeCompare(day(y)));
    const dated = made.filter((o) => o.deadline);
    const undated = made.filter((o) => !o.deadline);
    const asc = (x: { id: number; deadline: string | null }, y: typeof x) => x.deadline!.localeCompare(y.deadline!) || x.id - y.id;
    const expected: Record<string, number[]> = {
      "-created_at": byCreated.map((o) => o.id).reverse(),
      created_at: byCreated.map((o) => o.id),
      deadline: [...[...dated].sort(asc), ...[...undated].sort((x, y) => x.id - y.id)].map((o) => o.id),
      "-deadline": [...[...dated].sort((x, y) => asc(y, x)), ...[...undated].sort((x, y) => y.id - x.id)].map((o) => o.id),
    };
    for (const [sort, order] of Object.entries(expected)) {
      expect((await idsOf(co, `/orders?sort=${sort}`)).ids, sort).toEqual(order);
      expect(await walk(co, `/orders?sort=${sort}&per_page=2`), sort).toEqual(order);
      expect(await walk(co, `/orders?sort=${sort}&per_page=3&deadline_to=2026-12-31`), sort).toEqual(
        order.filter((id) => made.find((o) => o.id === id)!.deadline?.startsWith("2026")),
      );
    }
    const updated = (await idsOf(co, "/orders?sort=-updated_at")).ids;
    expect(updated[0]).toBe(ids[3]);
    expect(await walk(co, "/orders?sort=-updated_at&per_page=2")).toEqual(updated);
    const rows = await sql<{ id: number }>("select id from projects where company_id = $1 order by updated_at desc, id desc", [
      co.companyId,
    ]);
    expect(updated).toEqual(rows.map((r) => r.id));
    expect((await co.get("/orders?sort=deadline")).body.pagination.total).toBe(7);
  });

  it("a deadline range with a status filter, a page number or a sync pass answers the rows and total the filters select", async () => {
    const co = await newCompany();
    const made = await deadlines(co);
    const status: number = (await co.post("/statuses", { name: "Printing" })).body.status.id;
    const inRange = made.filter((o) => o.deadline && o.deadline >= "2026-12-01" && o.deadline <= "2027-12-31").map((o) => o.id);
    for (const id of inRange.slice(0, 2)) expect((await co.patch(`/orders/${id}`, { status_id: status })).status).toBe(200);
    const range = "deadline_from=2026-12-01&deadline_to=2027-12-31";
    const newestFirst = [...inRange].reverse();
    // Pages by number (an offset into the matches) and by cursor give the same rows, with the exact total.
    const page1 = await idsOf(co, `/orders?${range}&per_page=2&page=1`);
    const page2 = await idsOf(co, `/orders?${range}&per_page=2&page=2`);
    expect([...page1.ids, ...page2.ids]).toEqual(newestFirst);
    expect([page1.total, page2.total]).toEqual([inRange.length, inRange.length]);
    expect(await walk(co, `/orders?${range}&per_page=1`)).toEqual(newestFirst);
    // With a status: only the range's orders in it.
    expect(await idsOf(co, `/orders?${range}&status=${status}`)).toEqual({ ids: inRange.slice(0, 2).reverse(), total: 2 });
    // A sync pass over the range: every order of it once, in update order, with the range's total (the
    // changes moved back past the sync's lag).
    await sql("update projects set updated_at = updated_at - interval '1 minute' where company_id = $1", [co.companyId]);
    const since = "2000-01-01T00:00:00Z";
    const synced = await walk(co, `/orders?${range}&updated_since=${since}&per_page=1`);
    expect([...synced].sort((a, b) => a - b)).toEqual([...inRange].sort((a, b) => a - b));
    expect((await co.get(`/orders?${range}&updated_since=${since}`)).body.pagination.total).toBe(inRange.length);
  });

  it("a cursor is bound to its sort and its filters; sort does not go with updated_since", async () => {
    const co = await newCompany();
    await deadlines(co);
    const first = await co.get("/orders?sort=deadline&per_page=2");
    const cursor = first.body.pagination.next_cursor;
    expect((await co.get(`/orders?sort=deadline&per_page=2&cursor=${cursor}`)).status).toBe(200);
    for (const path of [
      `/orders?sort=-deadline&per_page=2&cursor=${cursor}`,
      `/orders?per_page=2&cursor=${cursor}`,
      `/orders?sort=deadline&payment_status=paid&per_page=2&cursor=${cursor}`,
      `/orders?sort=deadline&deadline_from=2026-01-01&per_page=2&cursor=${cursor}`,
    ]) {
      expect(expectError(await co.get(path), 400, "invalid_request").details[0].field, path).toBe("cursor");
    }
    const err = expectError(await co.get("/orders?sort=deadline&updated_since=2026-01-01T00:00:00Z"), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "sort", message: expect.any(String) }]);
    expect(expectError(await co.get("/orders?sort=title"), 400, "invalid_request").details[0].field).toBe("sort");
  });

  it("a forged cursor with a null or out-of-range deadline key is 400, never a failed query", async () => {
    const co = await newCompany();
    await deadlines(co);
    const cursor = (await co.get("/orders?sort=deadline&per_page=2")).body.pagination.next_cursor as string;
    const decoded = JSON.parse(Buffer.from(cursor, "base64url").toString());
    const forge = (k: unknown[]) => Buffer.from(JSON.stringify({ ...decoded, k })).toString("base64url");
    // Null is a deadline key (orders without one); a date far outside 0001–9999 or a null id is not.
    expect((await co.get(`/orders?sort=deadline&per_page=2&cursor=${forge([null, "1"])}`)).status).toBe(200);
    for (const k of [
      ["9999999", "1"],
      ["-9999999", "1"],
      ["1", null],
      [1, "1"],
    ]) {
      expectError(await co.get(`/orders?sort=deadline&per_page=2&cursor=${forge(k)}`), 400, "invalid_request");
    }
  });
});

describe("order filters between two companies", () => {
  it("company B filtering by company A's statuses gets no orders", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const ids = await a.load({ order_statuses: [{ ref: "s", name: "A's" }] });
    const { project } = await newOrder(a);
    await a.patch(`/orders/${project.id}`, { status_id: ids.s });
    expect((await idsOf(a, `/orders?status=${ids.s}`)).ids).toEqual([project.id]);
    expect(await idsOf(b, `/orders?status=${ids.s},${ids.s + 1}`)).toEqual({ ids: [], total: 0 });
    expect(await idsOf(b, "/orders?payment_status=paid")).toEqual({ ids: [], total: 0 });
  });
});
