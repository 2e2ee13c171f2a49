import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { type ApiResponse, expectError, newCompany, sql, type TestCompany } from "../../../test/support/api";
import { expectAscending, syncPass, syncUntil } from "../../../test/support/sync";
import { clients } from "../../db/schema/clients";
import { encodeCursor } from "../../http/pagination";
import { updatedSort } from "../../platform/incremental-sync";

const EPOCH = "1970-01-01T00:00:00.000Z";

async function clientsAt(co: TestCompany, at: string[]) {
  const ids = Object.values(await co.load({ clients: at.map((_, i) => ({ ref: `c${i}`, company_name: `Client ${i}` })) })) as number[];
  for (const [i, id] of ids.entries()) await sql("update clients set updated_at = $2 where id = $1", [id, at[i]]);
  return ids;
}
const dbNow = async () =>
  (await sql<{ now: string }>("select to_char(now() at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') now"))[0].now;

describe("GET /clients incremental sync", () => {
  it("pages by (updated_at, id) across equal and microsecond-apart instants, with tombstones only on request", async () => {
    const a = await newCompany();
    const at = [
      "2026-01-01T00:00:00.000002Z",
      "2026-01-01T00:00:00.000001Z",
      "2026-01-01T00:00:00.000001Z",
      "2025-12-31T00:00:00Z",
      "2026-02-01T00:00:00Z",
    ];
    const ids = await clientsAt(a, at);
    const order = [ids[3], ids[1], ids[2], ids[0], ids[4]];
    const pass = await syncPass(a, "/clients", EPOCH, { perPage: 2 });
    expect(pass.rows.map((r) => r.id)).toEqual(order);
    expect(pass.pages).toBe(3);
    // The watermark trails the database clock by the lag at least.
    const now = await dbNow();
    expect(pass.nextSince < now).toBe(true);
    expect(Date.parse(now) - Date.parse(pass.nextSince)).toBeGreaterThanOrEqual(2000);

    const first = await a.get(`/clients?updated_since=2026-01-01T00:00:00.000001Z&per_page=2`);
    expect(first.body.data.map((r: any) => r.id)).toEqual([ids[1], ids[2]]);
    expect(first.body.pagination).toMatchObject({ page: 1, per_page: 2, total: 4, next_cursor: expect.any(String) });

    // A soft delete moves updated_at on: once past the lag, a sync with include_deleted sees the tombstone.
    expect((await a.patch(`/clients/${ids[3]}`, { deleted: true })).status).toBe(200);
    const { state } = await syncUntil(a, "/clients", EPOCH, await dbNow(), "&include_deleted=true");
    expect(state.get(ids[3])).toMatchObject({ id: ids[3], deleted_at: expect.any(String) });
    expect([...state.keys()].sort()).toEqual([...ids].sort());
    const live = await syncPass(a, "/clients", EPOCH);
    expect(live.rows.map((r) => r.id)).toEqual(order.filter((id) => id !== ids[3]));
    // Without updated_since include_deleted keeps id order and counts the tombstones in total.
    const all = await a.get("/clients?include_deleted=true");
    expect(all.body.data.map((r: any) => r.id)).toEqual([...ids].sort((x, y) => x - y));
    expect(all.body.data.find((r: any) => r.id === ids[3]).deleted_at).toEqual(expect.any(String));
    expect(all.body.pagination.total).toBe(5);
    expect((await a.get("/clients")).body.pagination.total).toBe(4);
    expect((await a.get("/clients")).body.pagination.next_updated_since).toBeUndefined();
  });

  it("binds sync cursors to the company and the sync filters, and validates the parameters", async () => {
    const a = await newCompany();
    const b = await newCompany();
    await clientsAt(a, ["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"]);
    const res = await a.get(`/clients?updated_since=${EPOCH}&per_page=1`);
    const cursor = res.body.pagination.next_cursor;
    expect((await a.get(`/clients?updated_since=${EPOCH}&per_page=1&cursor=${cursor}`)).status).toBe(200);
    for (const path of [
      `/clients?updated_since=${EPOCH}&per_page=1&cursor=${cursor}&include_deleted=true`,
      `/clients?updated_since=2000-01-01T00:00:00Z&per_page=1&cursor=${cursor}`,
      `/clients?per_page=1&cursor=${cursor}`,
    ]) {
      expect(expectError(await a.get(path), 400, "invalid_request").details).toEqual([expect.objectContaining({ field: "cursor" })]);
    }
    // Company B: the cursor is refused, and its own sync sees none of A's clients.
    expect(expectError(await b.get(`/clients?updated_since=${EPOCH}&per_page=1&cursor=${cursor}`), 400, "invalid_request").details).toEqual(
      [expect.objectContaining({ field: "cursor" })],
    );
    const other = await b.get(`/clients?updated_since=${EPOCH}&include_deleted=true`);
    expect(other.body.data).toEqual([]);
    expect(other.body.pagination.total).toBe(0);
    for (const [param, value] of [
      ["updated_since", "yesterday"],
      ["updated_since", "2026-01-01"],
      ["include_deleted", "yes"],
    ]) {
      const err = expectError(await a.get(`/clients?${param}=${value}`), 400, "invalid_request");
      expect(err.details).toEqual([expect.objectContaining({ field: param })]);
    }
  });

  it("never skips a change made during the sync, even one committed late with an older updated_at", async () => {
    const a = await newCompany();
    const ids = await clientsAt(
      a,
      Array.from({ length: 12 }, (_, i) => `2026-01-01T00:00:${String(i).padStart(2, "0")}Z`),
    );
    // A transaction that starts now (updated_at = its start) and commits only after the first pass.
    const slow = new pg.Client({ connectionString: inject("databaseUrl") });
    await slow.connect();
    try {
      await slow.query("begin");
      await slow.query("update clients set company_name = 'Slow writer', updated_at = now() where id = $1", [ids[0]]);
      await new Promise((r) => setTimeout(r, 2500)); // past the lag: only the in-flight watermark holds it back
      const edits: number[] = [];
      const pass = await syncPass(a, "/clients", EPOCH, {
        between: async (page) => {
          // Rows seen and not yet seen, concurrently with the next page.
          const targets = [ids[(page * 5) % 12], ids[(page * 7 + 1) % 12]];
          edits.push(...targets);
          await Promise.all(targets.map((id, k) => a.patch(`/clients/${id}`, { company_name: `Edit ${page}.${k}` })));
        },
      });
      expectAscending(pass.rows);
      // Every client at most once per version; the slow writer's row only in its old version.
      expect(pass.rows.find((r) => r.id === ids[0]).company_name).toBe("Client 0");
      await slow.query("commit");
      expect(edits.length).toBeGreaterThan(0);
      const { state } = await syncUntil(a, "/clients", pass.nextSince, await dbNow());
      const merged = new Map(pass.rows.map((r) => [r.id, r]));
      for (const [id, row] of state) merged.set(id, row);
      // Final state: exactly what GET answers for every client.
      for (const id of ids) expect(merged.get(id)).toEqual((await a.get(`/clients/${id}`)).body.client);
      expect(merged.get(ids[0]).company_name).toBe("Slow writer");
    } finally {
      await slow.query("rollback").catch(() => {});
      await slow.end();
    }
  });

  it("counts a pass's total once: every page answers the first page's exact total, whichever way it was counted", async () => {
    const a = await newCompany();
    // More rows than the first page counts one by one before it turns to the counters (1,000).
    const n = 2_100;
    const ids = (
      Object.values(
        await a.load({ clients: Array.from({ length: n }, (_, i) => ({ ref: `c${i}`, company_name: `Client ${i}` })) }),
      ) as number[]
    ).sort((x, y) => x - y);
    // One second apart in id order, long ago; two of them deleted (tombstones). By rank, not by id: other
    // test files insert clients meanwhile, so the company's ids need not be consecutive.
    await sql(
      `update clients c set updated_at = '2026-01-01T00:00:00Z'::timestamptz + r.k * interval '1 second'
         from (select id, row_number() over (order by id) - 1 as k from clients where company_id = $1) r
        where c.id = r.id`,
      [a.companyId],
    );
    const at = (k: number) => new Date(Date.parse("2026-01-01T00:00:00Z") + k * 1000).toISOString();
    const deleted = [ids[10], ids[2000]];
    await sql("update clients set deleted_at = updated_at where id = any($1)", [deleted]);
    // A client changed now: past the watermark, in no pass yet. Its updated_at is set an hour ahead, so it
    // stays past every page's watermark (now − 2 s at most) however long the passes below take.
    const justNow = await a.post("/clients", { company_name: "Just now" });
    expect(justNow.status).toBe(200);
    await sql("update clients set updated_at = now() + interval '1 hour' where id = $1", [justNow.body.client.id]);

    for (const [since, extra, want] of [
      [EPOCH, "", n - 2], // a full sync: the counters, less the client changed now
      [EPOCH, "&include_deleted=true", n], // the same with tombstones
      [at(1_500), "", n - 1_500 - 1], // an incremental sync: fewer than 1,000 changes, counted
      [at(1_050), "", n - 1_050 - 1], // from the middle of the history: counted row by row
    ] as const) {
      const path = `/clients?per_page=100&updated_since=${encodeURIComponent(since)}${extra}`;
      const totals: number[] = [];
      let seen = 0;
      let cursor: string | null = null;
      do {
        const res: ApiResponse = await a.get(cursor ? `${path}&cursor=${cursor}` : path);
        expect(res.status).toBe(200);
        totals.push(res.body.pagination.total);
        seen += res.body.data.length;
        cursor = res.body.pagination.next_cursor;
        // Changes during the pass move rows past its watermark: the total stays the first page's.
        if (totals.length === 2) expect((await a.patch(`/clients/${ids[n - 1]}`, { company_name: "Renamed" })).status).toBe(200);
      } while (cursor);
      expect(new Set(totals), `${since}${extra}`).toEqual(new Set([want]));
      // The renamed client left the pass before it was reached: it is in the next one.
      expect(seen, `${since}${extra}`).toBe(want - 1);
      expect((await a.patch(`/clients/${ids[n - 1]}`, { company_name: `Client ${n - 1}` })).status).toBe(200);
      await sql("update clients set updated_at = $2 where id = $1", [ids[n - 1], at(n - 1)]);
    }
  });

  it("refuses a sync cursor whose carried total or watermark was edited (400 naming cursor), and never reads past the current watermark", async () => {
    const a = await newCompany();
    await clientsAt(a, ["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"]);
    const path = `/clients?updated_since=${EPOCH}&per_page=1`;
    const first = await a.get(path);
    expect(first.body.pagination.total).toBe(3);
    const cursor = first.body.pagination.next_cursor as string;
    const decoded = JSON.parse(Buffer.from(cursor, "base64url").toString());
    expect(decoded).toMatchObject({ t: 3, w: Date.parse(first.body.pagination.next_updated_since) });
    const edit = (change: Record<string, unknown>) => Buffer.from(JSON.stringify({ ...decoded, ...change })).toString("base64url");
    for (const change of [
      { t: 4 },
      { t: -1 },
      { t: "3" },
      { t: 1e300 },
      { w: decoded.w + 1 },
      { w: "soon" },
      { w: 1e17 },
      { w: undefined },
      { t: undefined },
    ]) {
      const res = await a.get(`${path}&cursor=${edit(change)}`);
      expect(expectError(res, 400, "invalid_request").details, JSON.stringify(change)).toEqual([
        expect.objectContaining({ field: "cursor" }),
      ]);
    }
    // Forged with a matching fingerprint: the total is the forger's, the watermark is never beyond the
    // current one, so a client changed within the last seconds is not returned.
    const scope = { companyId: a.companyId, filters: { q: null, updated_since: EPOCH, include_deleted: false } };
    const forged = encodeCursor(updatedSort(clients.updatedAt, clients.id), scope, decoded.k, 2, {
      total: 99,
      watermark: Date.now() + 86_400_000,
    });
    const late = (await a.post("/clients", { company_name: "Changed just now" })).body.client.id;
    const res = await a.get(`${path.replace("per_page=1", "per_page=10")}&cursor=${forged}`);
    expect(res.status).toBe(200);
    expect(res.body.pagination.total).toBe(99);
    expect(res.body.data.map((r: any) => r.id)).not.toContain(late);
    expect(res.body.data).toHaveLength(2);
  });
});
