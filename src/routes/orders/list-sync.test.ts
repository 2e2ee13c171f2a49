import { describe, expect, it } from "vitest";
import { expectError, newCompany, sql } from "../../../test/support/api";
import { newClient, newOrder } from "../../../test/support/orders";
import { syncPass, syncUntil } from "../../../test/support/sync";

const EPOCH = "1970-01-01T00:00:00.000Z";
const dbNow = async () =>
  (await sql<{ now: string }>("select to_char(now() at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') now"))[0].now;
const setUpdatedAt = (projectId: number, at: string) => sql("update projects set updated_at = $2 where id = $1", [projectId, at]);

describe("GET /orders incremental sync", () => {
  it("orders by the order's updated_at, which every change to the order moves on, with tombstones on request", async () => {
    const a = await newCompany();
    const clientId = await newClient(a);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push((await newOrder(a, { client_id: clientId, title: `Order ${i}` })).project.id);
    const at = ["2026-01-03T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-02T00:00:00Z"];
    for (const [i, id] of ids.entries()) await setUpdatedAt(id, at[i]);
    const pass = await syncPass(a, "/orders", EPOCH, { perPage: 2 });
    expect(pass.rows.map((r) => r.id)).toEqual([ids[1], ids[2], ids[3], ids[0]]);
    expect(pass.rows[0]).toMatchObject({ deleted_at: null, total: "0.00", client_name: expect.any(String) });

    // An invoice-only PATCH, an item and a delete each move the order's updated_at on.
    const patched = await a.patch(`/orders/${ids[1]}`, { client_notes: "Back door" });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(Date.parse(patched.body.project.updated_at)).toBeGreaterThan(Date.parse(at[1]));
    expect((await a.post(`/orders/${ids[2]}/items`, { title: "Tee", unit_price: "12.50" })).status).toBe(200);
    expect((await a.del(`/orders/${ids[3]}`)).status).toBe(200);
    const now = await dbNow();
    const { state } = await syncUntil(a, "/orders", pass.nextSince, now, "&include_deleted=true");
    expect([...state.keys()].sort()).toEqual([ids[1], ids[2], ids[3]].sort());
    expect(state.get(ids[2])).toMatchObject({ total: "12.50", deleted_at: null });
    expect(state.get(ids[3])).toMatchObject({ id: ids[3], deleted_at: expect.any(String), invoice_id: expect.any(Number) });
    // Without include_deleted the deleted order is left out; without updated_since the usual order and total.
    const live = await syncUntil(a, "/orders", pass.nextSince, now);
    expect([...live.state.keys()].sort()).toEqual([ids[1], ids[2]].sort());
    const all = await a.get("/orders?include_deleted=true");
    expect(all.body.data.map((r: any) => r.id)).toEqual([...ids].reverse());
    expect(all.body.pagination.total).toBe(4);
    expect((await a.get("/orders")).body.pagination.total).toBe(3);
  });

  it("refuses company A's sync cursor to company B, whose sync sees none of A's orders", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const clientId = await newClient(a);
    for (let i = 0; i < 3; i++) await setUpdatedAt((await newOrder(a, { client_id: clientId })).project.id, `2026-01-0${i + 1}T00:00:00Z`);
    const res = await a.get(`/orders?updated_since=${EPOCH}&per_page=1`);
    expect(res.body.pagination).toMatchObject({ total: 3, next_cursor: expect.any(String), next_updated_since: expect.any(String) });
    const cursor = res.body.pagination.next_cursor;
    expect((await a.get(`/orders?updated_since=${EPOCH}&per_page=1&cursor=${cursor}`)).body.data).toHaveLength(1);
    for (const co of [a, b]) {
      const path = co === a ? `/orders?per_page=1&cursor=${cursor}` : `/orders?updated_since=${EPOCH}&per_page=1&cursor=${cursor}`;
      expect(expectError(await co.get(path), 400, "invalid_request").details).toEqual([expect.objectContaining({ field: "cursor" })]);
    }
    const other = await b.get(`/orders?updated_since=${EPOCH}&include_deleted=true`);
    expect(other.body).toMatchObject({ data: [], pagination: { total: 0, next_cursor: null } });
  });

  it("answers every page of a pass with its first page's total, while orders change during the pass", async () => {
    const a = await newCompany();
    const clientId = await newClient(a);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await newOrder(a, { client_id: clientId })).project.id);
    for (const [i, id] of ids.entries()) await setUpdatedAt(id, `2026-01-0${i + 1}T00:00:00Z`);
    const totals: number[] = [];
    const pass = await syncPass(a, "/orders", EPOCH, {
      perPage: 2,
      between: async (page) => {
        if (page === 1) {
          // One order not reached yet changes, one is deleted: both leave this pass for the next.
          expect((await a.patch(`/orders/${ids[3]}`, { title: "Changed" })).status).toBe(200);
          expect((await a.del(`/orders/${ids[4]}`)).status).toBe(200);
        }
      },
      onPage: (res) => totals.push(res.body.pagination.total),
    });
    expect(totals).toEqual([5, 5]);
    expect(pass.rows.map((r) => r.id)).toEqual(ids.slice(0, 3));
  });
});
