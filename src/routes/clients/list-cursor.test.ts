import { describe, expect, it } from "vitest";
import { type ApiResponse, expectError, newCompany, sql, type TestCompany, workerLogLines } from "../../../test/support/api";

const load = async (co: TestCompany, n: number, prefix = "Client") =>
  co.load({ clients: Array.from({ length: n }, (_, i) => ({ ref: `c${i}`, company_name: `${prefix} ${i}` })) });

/** Follows next_cursor from `path` (which has a query string) to the end; the ids seen, page by page. */
async function walk(co: TestCompany, path: string, between: (page: number) => Promise<void> = async () => {}) {
  const pages: number[][] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse = await co.get(cursor ? `${path}&cursor=${cursor}` : path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push(res.body.data.map((c: any) => c.id));
    cursor = res.body.pagination.next_cursor;
    await between(pages.length);
    if (pages.length > 50) throw new Error("cursor walk does not end");
  } while (cursor);
  return pages;
}

describe("GET /clients with cursors", () => {
  it("walks every client once, in id order, with page numbers and a null next_cursor on the last page", async () => {
    const a = await newCompany();
    const ids = Object.values(await load(a, 7)) as number[];
    const first = await a.get("/clients?per_page=3");
    expect(first.body.pagination).toEqual({ page: 1, per_page: 3, total: 7, next_cursor: expect.any(String) });
    const second = await a.get(`/clients?per_page=3&cursor=${first.body.pagination.next_cursor}`);
    expect(second.body.pagination).toMatchObject({ page: 2, per_page: 3, total: 7 });
    expect((await walk(a, "/clients?per_page=3")).flat()).toEqual([...ids].sort((x, y) => x - y));
    // A page that ends exactly at the last row says so.
    expect((await a.get("/clients?per_page=7")).body.pagination.next_cursor).toBeNull();
  });

  it("stays stable while clients are added and deleted during the walk", async () => {
    const a = await newCompany();
    const ids = Object.values(await load(a, 9)) as number[];
    const sorted = [...ids].sort((x, y) => x - y);
    const added: number[] = [];
    const seen = (
      await walk(a, "/clients?per_page=3", async (page) => {
        if (page !== 1) return;
        // After page 1: delete a row already seen and one not yet seen, add one at the end.
        expect((await a.patch(`/clients/${sorted[0]}`, { deleted: true })).status).toBe(200);
        expect((await a.patch(`/clients/${sorted[5]}`, { deleted: true })).status).toBe(200);
        added.push((await a.post("/clients", { company_name: "Late arrival" })).body.client.id);
      })
    ).flat();
    // Nothing repeats, nothing live is skipped: the unseen deleted row is gone, the new one comes last.
    expect(seen).toEqual([...sorted.slice(0, 5), ...sorted.slice(6), ...added]);
  });

  it("binds a cursor to its search: another q, or page with cursor, is a 400 naming cursor", async () => {
    const a = await newCompany();
    await load(a, 4, "Acme");
    const res = await a.get("/clients?q=acme&per_page=2");
    expect(res.body.pagination.total).toBe(4);
    const cursor = res.body.pagination.next_cursor;
    expect((await a.get(`/clients?q=acme&per_page=2&cursor=${cursor}`)).body.data).toHaveLength(2);
    for (const path of [`/clients?q=acm&cursor=${cursor}`, `/clients?cursor=${cursor}`, `/clients?q=acme&page=2&cursor=${cursor}`]) {
      const err = expectError(await a.get(path), 400, "invalid_request");
      expect(err.details).toEqual([expect.objectContaining({ field: "cursor" })]);
    }
  });

  it.each([
    ["not base64 json", "%%%"],
    ["json but not a cursor", Buffer.from('{"v":1}').toString("base64url")],
    ["a key that is not digits", Buffer.from('{"v":1,"s":"id","k":["1 or 1=1"],"f":"x","p":2}').toString("base64url")],
    ["an empty value", ""],
  ])("rejects a malformed cursor (%s) with 400 naming cursor", async (_, cursor) => {
    const a = await newCompany();
    const err = expectError(await a.get(`/clients?cursor=${encodeURIComponent(cursor)}`), 400, "invalid_request");
    expect(err.details).toEqual([expect.objectContaining({ field: "cursor" })]);
  });

  it("a cursor from company A used by company B reveals nothing: the same 400 as any foreign cursor", async () => {
    const a = await newCompany();
    const b = await newCompany();
    await load(a, 3, "Alpha");
    await load(b, 3, "Beta");
    const cursorA = (await a.get("/clients?per_page=1")).body.pagination.next_cursor;
    const resB = await b.get(`/clients?per_page=1&cursor=${cursorA}`);
    const err = expectError(resB, 400, "invalid_request");
    expect(err.details).toEqual([expect.objectContaining({ field: "cursor" })]);
    expect(JSON.stringify(resB.body)).not.toMatch(/Alpha/);
    // B's own cursor works for B only.
    const cursorB = (await b.get("/clients?per_page=1")).body.pagination.next_cursor;
    expect((await b.get(`/clients?per_page=1&cursor=${cursorB}`)).body.data[0].company_name).toBe("Beta 1");
    expectError(await a.get(`/clients?per_page=1&cursor=${cursorB}`), 400, "invalid_request");
  });
});

describe("GET /clients total", () => {
  it("stays exact under concurrent creates and soft deletes", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const ids = Object.values(await load(a, 20)) as number[];
    await load(b, 5);
    const creates = Array.from({ length: 15 }, (_, i) => a.post("/clients", { company_name: `Concurrent ${i}` }));
    const deletes = ids.slice(0, 8).map((id) => a.patch(`/clients/${id}`, { deleted: true }));
    const reads = Array.from({ length: 6 }, () => a.get("/clients?per_page=1"));
    const results = await Promise.all([...creates, ...deletes, ...reads]);
    // Any other answer is named with its body and the Worker's log lines for its request.
    const logOf = (requestId: string) => workerLogLines().filter((line) => line.includes(requestId));
    expect(
      results.map((r) => (r.status === 200 ? 200 : { status: r.status, body: r.body, log: logOf(r.body?.error?.request_id ?? "-") })),
    ).toEqual(results.map(() => 200));
    // Every total read mid-flight was some exact intermediate count (20 + creates − deletes so far).
    for (const r of results.slice(-6)) expect(r.body.pagination.total).toBeGreaterThanOrEqual(12);
    const [{ n }] = await sql<{ n: number }>("select count(*)::int n from clients where company_id = $1 and deleted_at is null", [
      a.companyId,
    ]);
    expect(n).toBe(27);
    expect((await a.get("/clients")).body.pagination.total).toBe(27);
    expect((await b.get("/clients")).body.pagination.total).toBe(5);
    // A hard delete (outside the API) is counted too.
    await sql("delete from clients where id = $1", [ids[19]]);
    expect((await a.get("/clients")).body.pagination.total).toBe(26);
  });
});
