import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { describe, expect, inject, it } from "vitest";
import { db, expectError, newCompany, sql, type TestCompany } from "../../../test/support/api";
import { expectBatchLosesExternalIdRace } from "../../../test/support/locks";
import { digest, earlyInMinute } from "../../../test/support/ratelimit";
import { createToken } from "../../../tools/ops/commands";
import { BATCH_ITEMS_LIMIT, RATE_WINDOW_SECONDS } from "../../ratelimit";
import { ITEMS_RESERVE_AHEAD } from "../../ratelimit/upstash";

const batch = (co: TestCompany, items: unknown[], atomic?: boolean, headers: Record<string, string> = {}) =>
  co.post("/clients/batch", atomic === undefined ? { items } : { atomic, items }, { headers });
const clientsOf = (companyId: number) =>
  sql<{ id: number; company_name: string; external_id: string | null }>(
    "select id, company_name, external_id from clients where company_id = $1 and deleted_at is null order by id",
    [companyId],
  );
const eventsOf = (companyId: number) =>
  sql<{ type: string; resource_id: string }>("select type, resource_id from webhook_events where company_id = $1 order by id", [companyId]);

describe("POST /clients/batch", () => {
  it("answers each item in order with its single request's status and body; items fail on their own (atomic false)", async () => {
    const a = await newCompany();
    const existing = (await a.post("/clients", { company_name: "Existing", external_id: "ext-1" })).body.client;
    const other = (await a.post("/clients", { company_name: "Other" })).body.client;
    // One request id for the batch and the single requests it is compared with (error bodies carry it).
    const rid = { "x-request-id": `batch-${randomUUID()}` };
    const res = await batch(
      a,
      [
        { method: "create", data: { company_name: "New One", email: "one@example.com" } },
        { method: "create", data: { company_name: "" } },
        { method: "update", id: other.id, data: { phone: "555" } },
        { method: "update", id: 2147483000, data: { phone: "1" } },
        { method: "upsert", external_id: "ext-2", data: { company_name: "Upserted" } },
        { method: "upsert", external_id: "ext-1", data: { company_name: "Existing renamed", metadata: { k: "v" } } },
        { method: "create", external_id: "ext-1", data: { company_name: "Taken" } },
        { method: "delete", id: 1, data: {} },
        { method: "create", data: { company_name: "X", unknown: 1 } },
      ],
      undefined,
      rid,
    );
    expect(res.status).toBe(200);
    const items = res.body.data;
    expect(items.map((i: any) => [i.index, i.status])).toEqual([
      [0, 200],
      [1, 400],
      [2, 200],
      [3, 404],
      [4, 201],
      [5, 200],
      [6, 409],
      [7, 400],
      [8, 400],
    ]);
    expect(items[0].body.client).toMatchObject({ company_name: "New One", email: "one@example.com" });
    // The single request's own answer: the same message and fields.
    expect(items[1].body).toEqual((await a.post("/clients", { company_name: "" }, { headers: rid })).body);
    expect(items[2].body.client).toMatchObject({ id: other.id, phone: "555" });
    expect(items[3].body).toEqual({
      error: { code: "not_found", message: "Client not found", details: null, request_id: rid["x-request-id"] },
    });
    expect(items[4].body.client).toMatchObject({ company_name: "Upserted", external_id: "ext-2" });
    expect(items[5].body.client).toMatchObject({ id: existing.id, company_name: "Existing renamed", metadata: { k: "v" } });
    // ext-1 is addressed by item 5 already: a row appears once per batch.
    expect(items[6].body.error).toMatchObject({ code: "conflict", details: [expect.objectContaining({ field: "external_id" })] });
    expect(items[7].body.error.details).toEqual([expect.objectContaining({ field: "method" })]);
    expect(items[8].body.error.details).toEqual([{ field: "unknown", message: "Unknown field" }]);
    // What the answer says is what is stored, with one event per client written.
    expect((await clientsOf(a.companyId)).map((c) => c.company_name)).toEqual(["Existing renamed", "Other", "New One", "Upserted"]);
    const events = await eventsOf(a.companyId);
    expect(
      events
        .slice(2)
        .map((e) => e.type)
        .sort(),
    ).toEqual(["client.created", "client.created", "client.updated", "client.updated"]);
  });

  it("an item whose external id another live client holds is 409 naming it, as its single request; the others are written", async () => {
    const a = await newCompany();
    const holder = (await a.post("/clients", { company_name: "Holder", external_id: "taken" })).body.client;
    const rid = { "x-request-id": `conflict-${randomUUID()}` };
    const res = await batch(
      a,
      [
        { method: "create", data: { company_name: "Fine" } },
        { method: "create", data: { company_name: "Clash", external_id: "taken" } },
      ],
      undefined,
      rid,
    );
    expect(res.body.data[1]).toEqual({
      index: 1,
      status: 409,
      body: (await a.post("/clients", { company_name: "Clash", external_id: "taken" }, { headers: rid })).body,
    });
    expect(res.body.data[1].body.error.details[0].message).toContain(String(holder.id));
    expect((await clientsOf(a.companyId)).map((c) => c.company_name)).toEqual(["Holder", "Fine"]);
  });

  it("atomic: one failing item writes nothing; each item says whether it failed or was rolled back", async () => {
    const a = await newCompany();
    const before = await clientsOf(a.companyId);
    // Refused in SQL (an unknown id) …
    const res = await batch(
      a,
      [
        { method: "create", data: { company_name: "Would be" } },
        { method: "update", id: 2147483000, data: { phone: "1" } },
        { method: "upsert", external_id: "atomic-1", data: { company_name: "Also would be" } },
      ],
      true,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.map((i: any) => [i.status, i.body.error?.code])).toEqual([
      [424, "rolled_back"],
      [404, "not_found"],
      [424, "rolled_back"],
    ]);
    expect(res.body.data[0].body.error.details).toEqual({ failed: [1] });
    // … and in validation, before any SQL.
    const invalid = await batch(
      a,
      [
        { method: "create", data: { company_name: "Fine" } },
        { method: "create", data: {} },
      ],
      true,
    );
    expect(invalid.body.data.map((i: any) => i.status)).toEqual([424, 400]);
    expect(await clientsOf(a.companyId)).toEqual(before);
    expect(await eventsOf(a.companyId)).toEqual([]);
    // All valid: all written, with their events.
    const ok = await batch(
      a,
      [
        { method: "create", data: { company_name: "One" } },
        { method: "upsert", external_id: "atomic-2", data: { company_name: "Two" } },
      ],
      true,
    );
    expect(ok.body.data.map((i: any) => i.status)).toEqual([200, 201]);
    expect((await clientsOf(a.companyId)).map((c) => c.company_name)).toEqual(["One", "Two"]);
    expect((await eventsOf(a.companyId)).map((e) => e.type)).toEqual(["client.created", "client.created"]);
  });

  it("two batches upserting the same external ids at once make one client each (atomic or not)", async () => {
    const a = await newCompany();
    const keys = Array.from({ length: 30 }, (_, i) => `sync-${i}`);
    const items = (name: string) => keys.map((k) => ({ method: "upsert", external_id: k, data: { company_name: `${name} ${k}` } }));
    const results = await Promise.all([
      batch(a, items("First")),
      batch(a, [...items("Second")].reverse()),
      batch(a, items("Third"), true),
      batch(a, items("Fourth"), true),
    ]);
    for (const r of results)
      expect(
        r.body.data.every((i: any) => i.status === 200 || i.status === 201),
        JSON.stringify(r.body),
      ).toBe(true);
    const rows = await clientsOf(a.companyId);
    expect(rows.map((r) => r.external_id).sort()).toEqual([...keys].sort());
    // Each key created once, by exactly one of the batches, and updated by the three others.
    const created = results.flatMap((r) => r.body.data.filter((i: any) => i.status === 201));
    expect(created).toHaveLength(keys.length);
    const types = (await eventsOf(a.companyId)).map((e) => e.type);
    expect(types.filter((t) => t === "client.created")).toHaveLength(keys.length);
    expect(types.filter((t) => t === "client.updated")).toHaveLength(keys.length * 3);
  });

  it("company B's batch never touches company A's clients: A's ids are not found, A's external ids are B's own", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const mine = (await a.post("/clients", { company_name: "A's", external_id: "shared" })).body.client;
    const before = await clientsOf(a.companyId);
    const rid = { "x-request-id": `tenancy-${randomUUID()}` };
    const res = await batch(
      b,
      [
        { method: "update", id: mine.id, data: { company_name: "Stolen" } },
        { method: "update", external_id: "shared", data: { company_name: "Stolen" } },
      ],
      undefined,
      rid,
    );
    const missing = await batch(b, [{ method: "update", id: 2147483000, data: { company_name: "x" } }], undefined, rid);
    expect(res.body.data.map((i: any) => i.body)).toEqual([missing.body.data[0].body, missing.body.data[0].body]);
    const upserted = await batch(b, [{ method: "upsert", external_id: "shared", data: { company_name: "B's" } }]);
    expect(upserted.body.data[0].status).toBe(201);
    expect(upserted.body.data[0].body.client.id).not.toBe(mine.id);
    expect(await clientsOf(a.companyId)).toEqual(before);
    expect((await clientsOf(b.companyId)).map((c) => c.external_id)).toEqual(["shared"]);
  });

  it("an item addressing a row an earlier item addresses is 409 (by id, by external id, or both meaning one client)", async () => {
    const a = await newCompany();
    const c = (await a.post("/clients", { company_name: "C", external_id: "c-ext" })).body.client;
    const res = await batch(a, [
      { method: "update", id: c.id, data: { phone: "1" } },
      { method: "update", id: c.id, data: { phone: "2" } },
      { method: "upsert", external_id: "c-ext", data: { company_name: "Same client" } },
      { method: "create", data: { company_name: "N1", external_id: "n" } },
      { method: "create", data: { company_name: "N2", external_id: "n" } },
    ]);
    expect(res.body.data.map((i: any) => i.status)).toEqual([200, 409, 409, 200, 409]);
    expect((await sql("select phone from clients where id = $1", [c.id]))[0].phone).toBe("1");
  });

  it("refuses a batch of 0 or 101 items, or another atomic, as a whole (400, nothing written)", async () => {
    const a = await newCompany();
    const item = { method: "create", data: { company_name: "x" } };
    for (const body of [{ items: [] }, { items: Array(101).fill(item) }, { atomic: "yes", items: [item] }, { items: [item], extra: 1 }]) {
      expectError(await a.post("/clients/batch", body), 400, "invalid_request");
    }
    expect(await clientsOf(a.companyId)).toEqual([]);
    const hundred = await a.post("/clients/batch", {
      items: Array.from({ length: 100 }, (_, i) => ({ ...item, data: { company_name: `C${i}` } })),
    });
    expect(hundred.body.data).toHaveLength(100);
    expect(await clientsOf(a.companyId)).toHaveLength(100);
    // The list's counters count them.
    expect((await a.get("/clients")).body.pagination.total).toBe(100);
  });

  it("Idempotency-Key replays the whole batch's answer and writes nothing more", async () => {
    const a = await newCompany();
    const key = randomUUID();
    const items = [{ method: "create", data: { company_name: "Once" } }];
    const first = await batch(a, items, undefined, { "idempotency-key": key });
    const again = await batch(a, items, undefined, { "idempotency-key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await clientsOf(a.companyId)).toHaveLength(1);
    expectError(
      await batch(a, [{ method: "create", data: { company_name: "Other" } }], undefined, { "idempotency-key": key }),
      422,
      "invalid_request",
    );
  });

  it(`counts a batch's items against ${BATCH_ITEMS_LIMIT} per minute: one that does not fit is a 429 that counts and writes none`, async () => {
    await earlyInMinute(45_000);
    const a = await newCompany();
    const { token } = await createToken(db(), { companyId: a.companyId });
    const as = { ...a, post: (path: string, body: unknown) => a.post(path, body, { token }) } as TestCompany;
    const redis = new Redis({ port: inject("redisPort"), lazyConnect: true });
    await redis.connect();
    try {
      const window = Math.floor(Date.now() / (RATE_WINDOW_SECONDS * 1000));
      await redis.set(`crm:ratelimit-items:${digest(token)}:${window}`, BATCH_ITEMS_LIMIT - 30, "EX", 120);
      const items = (n: number) => Array.from({ length: n }, (_, i) => ({ method: "create", data: { company_name: `L${i}` } }));
      const refused = await batch(as, items(31));
      const err = expectError(refused, 429, "rate_limited");
      expect(err.details).toEqual({ retry_after_seconds: expect.any(Number), items_limit: BATCH_ITEMS_LIMIT, items_remaining: 30 });
      expect(refused.headers.get("retry-after")).toBeTruthy();
      expect(await clientsOf(a.companyId)).toEqual([]);
      // The refused items were not counted: 30 still fit, then none.
      expect((await batch(as, items(30))).status).toBe(200);
      expectError(await batch(as, items(1)), 429, "rate_limited");
      expect(await clientsOf(a.companyId)).toHaveLength(30);
      // Another key of the same company has its own window. Its first batch counts 200 more items ahead for
      // this isolate, which serve its next batches without asking Redis.
      const key = `crm:ratelimit-items:${digest(a.token)}:${window}`;
      expect((await batch(a, items(1))).status).toBe(200);
      if (window === Math.floor(Date.now() / (RATE_WINDOW_SECONDS * 1000))) {
        expect(Number(await redis.get(key))).toBe(1 + ITEMS_RESERVE_AHEAD);
        expect((await batch(a, items(2))).status).toBe(200);
        expect(Number(await redis.get(key))).toBe(1 + ITEMS_RESERVE_AHEAD);
      }
    } finally {
      redis.disconnect();
    }
  });
});

describe("POST /clients/batch racing POST /clients for an external id", () => {
  // The batch's statement locks its clients after its snapshot; the held row makes it wait there, so a
  // POST /clients that takes the external id meanwhile commits before the batch writes it.
  for (const mode of ["atomic", "keyed"] as const) {
    it(`${mode}: the update that sets the taken external id is that item's 409 naming the client that has it`, async () => {
      const co = await newCompany();
      const target = (await co.post("/clients", { company_name: "Target" })).body.client;
      const other = (await co.post("/clients", { company_name: "Other" })).body.client;
      await expectBatchLosesExternalIdRace(
        co,
        {
          path: "/clients",
          table: "clients",
          noun: "client",
          idOf: (body) => body.client.id,
          create: { company_name: "Raced", external_id: "raced" },
          otherChange: { company_name: "Renamed" },
          rows: async (companyId) => (await clientsOf(companyId)).map((r) => ({ ...r, changed: r.company_name === "Renamed" })),
        },
        { target: target.id, other: other.id },
        mode,
      );
    });
  }
});
