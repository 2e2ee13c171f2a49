import { describe, expect, it } from "vitest";
import { asRequest, db, expectError, newCompany, sql, type TestCompany } from "../../../test/support/api";
import { holdRow } from "../../../test/support/locks";
import { newOrder } from "../../../test/support/orders";
import { createOrderStatus } from "../../../tools/ops/commands";
import { LOCK_STATUSES } from "./queries";

const names = async (co: TestCompany) => ((await co.get("/statuses")).body.data as { name: string }[]).map((s) => s.name);

/** The company's live statuses as stored: [name, position], in position order. */
const stored = (co: TestCompany) =>
  sql<{ name: string; position: number }>(
    "select name, position from order_statuses where company_id = $1 and deleted_at is null order by position, id",
    [co.companyId],
  );

async function create(co: TestCompany, body: Record<string, unknown>) {
  const res = await co.post("/statuses", body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.status as { id: number; name: string; position: number; color: string | null };
}

describe("GET and POST /statuses", () => {
  it("creates statuses last, or at a position (the rest move down), and lists them in order with dense positions", async () => {
    const co = await newCompany();
    expect((await co.get("/statuses")).body).toEqual({ data: [] });
    const quote = await create(co, { name: "Quote" });
    expect(quote).toMatchObject({ name: "Quote", color: null, position: 0 });
    await create(co, { name: "Shipped", color: "#2E7D32" });
    const art = await create(co, { name: "Artwork", position: 1 });
    expect(art.position).toBe(1);
    await create(co, { name: "Rush", position: 0 });
    await create(co, { name: "Done", position: 999 }); // past the end: last
    const list = await co.get("/statuses");
    expect(list.body.data.map((s: any) => [s.name, s.position])).toEqual([
      ["Rush", 0],
      ["Quote", 1],
      ["Artwork", 2],
      ["Shipped", 3],
      ["Done", 4],
    ]);
    const shipped = list.body.data[3];
    expect(shipped).toEqual({
      id: expect.any(Number),
      name: "Shipped",
      color: "#2E7D32",
      position: 3,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // The rows moved down say so in their updated_at.
    expect(list.body.data[1].updated_at > (quote as any).updated_at).toBe(true);
  });

  it("refuses a blank or too long name, a color that is not #RRGGBB, a negative position and unknown fields, writing nothing", async () => {
    const co = await newCompany();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "  " }, "name"],
      [{ name: "x".repeat(101) }, "name"],
      [{}, "name"],
      [{ name: "A", color: "blue" }, "color"],
      [{ name: "A", color: "#12345" }, "color"],
      [{ name: "A", color: "#12345G" }, "color"],
      [{ name: "A", position: -1 }, "position"],
      [{ name: "A", position: 1.5 }, "position"],
      [{ name: "A", extra: 1 }, "extra"],
    ];
    for (const [body, field] of cases) {
      const err = expectError(await co.post("/statuses", body), 400, "invalid_request");
      expect(
        err.details.map((d: { field: string }) => d.field),
        JSON.stringify(body),
      ).toEqual([field]);
    }
    expect(await stored(co)).toEqual([]);
    // 100 characters (after trimming) and a lowercase color are fine.
    expect((await create(co, { name: ` ${"x".repeat(100)} `, color: "#a1b2c3" })).name).toBe("x".repeat(100));
  });

  it("a name another status has, ignoring case, is 409 conflict naming that status; nothing is written", async () => {
    const co = await newCompany();
    const printing = await create(co, { name: "Printing" });
    await create(co, { name: "Packing" });
    const res = await co.post("/statuses", { name: "PRINTING", position: 0 });
    const err = expectError(res, 409, "conflict");
    expect(err.details).toEqual({ field: "name", status_id: printing.id });
    expect(await stored(co)).toEqual([
      { name: "Printing", position: 0 },
      { name: "Packing", position: 1 },
    ]);
    // Another company may have the same name.
    expect((await (await newCompany()).post("/statuses", { name: "Printing" })).status).toBe(200);
  });

  it("an Idempotency-Key replays the first answer and creates one status", async () => {
    const co = await newCompany();
    const headers = { "idempotency-key": "status-1" };
    const first = await co.post("/statuses", { name: "Proof" }, { headers });
    const again = await co.post("/statuses", { name: "Proof" }, { headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await stored(co)).toEqual([{ name: "Proof", position: 0 }]);
  });
});

describe("PATCH /statuses/{id}", () => {
  it("renames, recolors and moves a status; the ones in between move one place, positions stay 0 … n−1", async () => {
    const co = await newCompany();
    const ids: number[] = [];
    for (const name of ["A", "B", "C", "D", "E"]) ids.push((await create(co, { name })).id);
    const moved = await co.patch(`/statuses/${ids[3]}`, { position: 1, color: "#FF0000" });
    expect(moved.status).toBe(200);
    expect(moved.body.status).toMatchObject({ id: ids[3], name: "D", position: 1, color: "#FF0000" });
    expect(await names(co)).toEqual(["A", "D", "B", "C", "E"]);
    expect((await co.patch(`/statuses/${ids[0]}`, { position: 3 })).body.status.position).toBe(3);
    expect(await names(co)).toEqual(["D", "B", "C", "A", "E"]);
    expect((await co.patch(`/statuses/${ids[1]}`, { position: 50 })).body.status.position).toBe(4);
    expect(await names(co)).toEqual(["D", "C", "A", "E", "B"]);
    const renamed = await co.patch(`/statuses/${ids[2]}`, { name: "Cutting", color: null });
    expect(renamed.body.status).toMatchObject({ name: "Cutting", color: null, position: 1 });
    // Its own name in another case is no conflict.
    expect((await co.patch(`/statuses/${ids[2]}`, { name: "CUTTING" })).body.status.name).toBe("CUTTING");
    expect((await stored(co)).map((s) => s.position)).toEqual([0, 1, 2, 3, 4]);
  });

  it("409 for another status's name, 404 for a missing or deleted status, 400 for an empty body; nothing changes", async () => {
    const co = await newCompany();
    const a = await create(co, { name: "Alpha" });
    const b = await create(co, { name: "Beta" });
    const before = await stored(co);
    const err = expectError(await co.patch(`/statuses/${b.id}`, { name: "alpha", position: 0 }), 409, "conflict");
    expect(err.details).toEqual({ field: "name", status_id: a.id });
    expectError(await co.patch(`/statuses/${b.id}`, {}), 400, "invalid_request");
    expectError(await co.patch("/statuses/2147483000", { name: "Gamma" }), 404, "not_found");
    expect((await co.del(`/statuses/${a.id}`)).status).toBe(200);
    expectError(await co.patch(`/statuses/${a.id}`, { name: "Gamma" }), 404, "not_found");
    expect(await stored(co)).toEqual([{ name: "Beta", position: 0 }]);
    expect(before).toHaveLength(2);
  });

  it("concurrent moves and creates leave a dense order with every status once", async () => {
    const co = await newCompany();
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push((await create(co, { name: `S${i}` })).id);
    const writes = [
      ...Array.from({ length: 24 }, (_, i) => co.patch(`/statuses/${ids[i % 7]}`, { position: (i * 5) % 9 })),
      ...Array.from({ length: 6 }, (_, i) => co.post("/statuses", { name: `New ${i}`, position: i % 3 })),
      co.del(`/statuses/${ids[7]}`),
    ];
    const answers = await Promise.all(writes);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    const rows = await stored(co);
    expect(rows.map((r) => r.position)).toEqual(rows.map((_, i) => i));
    expect(rows).toHaveLength(13);
    expect(new Set(rows.map((r) => r.name)).size).toBe(13);
    // The list shows the same.
    expect((await co.get("/statuses")).body.data.map((s: any) => s.position)).toEqual(rows.map((_, i) => i));
  });

  it("concurrent creates of one name make one status; the others get 409", async () => {
    const co = await newCompany();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => co.post("/statuses", { name: i % 2 ? "Ready" : "READY" })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(9);
    expect(await stored(co)).toHaveLength(1);
  });
});

describe("DELETE /statuses/{id}", () => {
  it("removes a status (the ones after it move up); 409 with the number of live orders while orders have it", async () => {
    const co = await newCompany();
    const quote = await create(co, { name: "Quote" });
    const prod = await create(co, { name: "Production" });
    await create(co, { name: "Shipped" });
    const one = await newOrder(co);
    const two = await newOrder(co);
    for (const order of [one, two]) expect((await co.patch(`/orders/${order.project.id}`, { status_id: prod.id })).status).toBe(200);
    const err = expectError(await co.del(`/statuses/${prod.id}`), 409, "conflict");
    expect(err.details).toEqual({ live_orders: 2 });
    expect(await names(co)).toEqual(["Quote", "Production", "Shipped"]);
    // A deleted order does not count; an order moved away neither.
    expect((await co.del(`/orders/${one.project.id}`)).status).toBe(200);
    expect((await co.patch(`/orders/${two.project.id}`, { status_id: quote.id })).status).toBe(200);
    const res = await co.del(`/statuses/${prod.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true, id: prod.id });
    expect((await stored(co)).map((s) => [s.name, s.position])).toEqual([
      ["Quote", 0],
      ["Shipped", 1],
    ]);
    expectError(await co.del(`/statuses/${prod.id}`), 404, "not_found");
    // The deleted order still names it; a live order can no longer be given it.
    expect((await sql("select status_id from projects where id = $1", [one.project.id]))[0].status_id).toBe(prod.id);
    const refused = expectError(await co.patch(`/orders/${two.project.id}`, { status_id: prod.id }), 400, "invalid_request");
    expect(refused.details).toEqual([{ field: "status_id", message: "No such order status in your company" }]);
    // Its name is free again.
    expect((await co.post("/statuses", { name: "production" })).status).toBe(200);
  });

  it("a delete waits for an order write that names the status (it holds the status until it commits), then counts that order: 409", async () => {
    const co = await newCompany();
    const status = await create(co, { name: "Racing" });
    const order = await newOrder(co);
    // The order write takes the status (for share), then waits for its project row, held here.
    const held = await holdRow("projects", order.project.id);
    const patching = co.patch(`/orders/${order.project.id}`, { status_id: status.id });
    await held.blocked(1);
    const deleting = co.del(`/statuses/${status.id}`);
    await held.blocked(2);
    await held.release();
    const [patched, deleted] = await Promise.all([patching, deleting]);
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(expectError(deleted, 409, "conflict").details).toEqual({ live_orders: 1 });
    const [row] = await sql<{ deleted_at: Date | null }>("select deleted_at from order_statuses where id = $1", [status.id]);
    expect(row.deleted_at).toBeNull();
  });
});

describe("DELETE /statuses/{id} under the company's status lock", () => {
  it("holds the company's status lock while it waits for the status row, so a move of another status waits behind it", async () => {
    const co = await newCompany();
    const target = await create(co, { name: "Target" });
    const other = await create(co, { name: "Other" });
    // The status row is held here: the delete takes the company lock, then waits for the row.
    const held = await holdRow("order_statuses", target.id);
    const deleting = co.del(`/statuses/${target.id}`);
    await held.blocked(1);
    const locks = await sql<{ granted: boolean }>(
      `select granted from pg_locks where locktype = 'advisory' and classid = $1 and objid = $2 and objsubid = 2`,
      [LOCK_STATUSES, co.companyId],
    );
    expect(locks).toEqual([{ granted: true }]);
    // A move waits for the company lock the delete holds (behind the held row, through the delete).
    const moving = co.patch(`/statuses/${other.id}`, { position: 0 });
    await held.blocked(2);
    await held.release();
    const [deleted, moved] = await Promise.all([deleting, moving]);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect((await stored(co)).map((s) => [s.name, s.position])).toEqual([["Other", 0]]);
  });

  it("concurrent deletes and moves are applied one after the other: every answer 200, positions dense", async () => {
    const co = await newCompany();
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.push((await create(co, { name: `S${i}` })).id);
    const answers = await Promise.all([
      ...[0, 2, 4, 6, 8].map((i) => co.del(`/statuses/${ids[i]}`)),
      ...[1, 3, 5].map((i) => co.patch(`/statuses/${ids[i]}`, { position: 9 - i })),
    ]);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    const rows = await stored(co);
    expect(rows.map((r) => r.position)).toEqual([0, 1, 2, 3, 4]);
    expect(rows.map((r) => r.name).sort()).toEqual(["S1", "S3", "S5", "S7", "S9"]);
  });
});

describe("statuses between two companies", () => {
  it("company B neither sees, changes, deletes nor uses company A's statuses: the answers for a status that does not exist", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const status = await create(a, { name: "A's status" });
    const before = await stored(a);
    expect((await b.get("/statuses")).body).toEqual({ data: [] });
    const same = asRequest("foreign-or-missing");
    for (const [foreign, missing] of [
      [() => b.patch(`/statuses/${status.id}`, { name: "Mine" }, same), () => b.patch("/statuses/2147483000", { name: "Mine" }, same)],
      [() => b.del(`/statuses/${status.id}`, same), () => b.del("/statuses/2147483000", same)],
    ]) {
      const [f, m] = [await foreign(), await missing()];
      expectError(f, 404, "not_found");
      expect(f.body).toEqual(m.body);
    }
    const order = await newOrder(b);
    const used = await b.patch(`/orders/${order.project.id}`, { status_id: status.id }, same);
    const absent = await b.patch(`/orders/${order.project.id}`, { status_id: 2147483000 }, same);
    expectError(used, 400, "invalid_request");
    expect(used.body).toEqual(absent.body);
    // B may use A's name, and A's order is untouched.
    expect((await b.post("/statuses", { name: "A's status" })).status).toBe(200);
    expect(await stored(a)).toEqual(before);
  });
});

describe("statuses from the admin CLI and imports", () => {
  it("keep the same rules: dense positions, unique names ignoring case", async () => {
    const co = await newCompany();
    await createOrderStatus(db(), { companyId: co.companyId, name: "First" });
    await createOrderStatus(db(), { companyId: co.companyId, name: "Far", position: 40 });
    await createOrderStatus(db(), { companyId: co.companyId, name: "Front", position: 0 });
    await co.load({
      order_statuses: [
        { ref: "x", name: "Second", position: 1 },
        { ref: "y", name: "Also second", position: 1 },
        { ref: "z", name: "Last" },
      ],
    });
    expect((await stored(co)).map((s) => [s.name, s.position])).toEqual([
      ["Front", 0],
      ["Second", 1],
      ["Also second", 2],
      ["First", 3],
      ["Far", 4],
      ["Last", 5],
    ]);
    await expect(createOrderStatus(db(), { companyId: co.companyId, name: "FIRST" })).rejects.toThrow(/exists already/);
    await expect(
      co.load({
        order_statuses: [
          { ref: "d", name: "Dup" },
          { ref: "e", name: "dup" },
        ],
      }),
    ).rejects.toThrow(/given twice/);
    expect(await stored(co)).toHaveLength(6);
  });
});
