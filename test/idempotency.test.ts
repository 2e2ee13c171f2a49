import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { purgeExpiredIdempotencyKeys } from "../src/http/idempotency";
import { allAtOnce, call, db, expectError, newCompany, sql } from "./support/api";
import { companyRows, declares, documentChecker, inRunnableOrder, populated, tokenOperations } from "./support/operations";
import { newClient, newOrder } from "./support/orders";

const keyed = (key: string) => ({ headers: { "Idempotency-Key": key } });
const count = async (text: string, params: unknown[]) => Number((await sql<{ n: string }>(text, params))[0].n);

describe("Idempotency-Key", () => {
  it("replays the stored response of POST /clients for the same key and body, writing one row", async () => {
    const co = await newCompany();
    const key = randomUUID();
    const body = { company_name: "Replay Co", email: "a@example.com" };
    const first = await co.post("/clients", body, keyed(key));
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await co.post("/clients", body, keyed(key));
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    expect(await count("select count(*) n from clients where company_id = $1", [co.companyId])).toBe(1);
    // Without a key every POST writes.
    await co.post("/clients", body);
    expect(await count("select count(*) n from clients where company_id = $1", [co.companyId])).toBe(2);
  });

  it("answers 422 naming the key for another body or another path, writing nothing", async () => {
    const co = await newCompany();
    const key = randomUUID();
    const clientId = await newClient(co);
    expect((await co.post("/clients", { company_name: "One" }, keyed(key))).status).toBe(200);
    const otherBody = expectError(await co.post("/clients", { company_name: "Two" }, keyed(key)), 422, "invalid_request");
    expect(otherBody.details).toEqual([{ field: "idempotency-key", message: expect.stringContaining("body") }]);
    const otherPath = expectError(await co.post("/orders", { client_id: clientId, title: "T" }, keyed(key)), 422, "invalid_request");
    expect(otherPath.details).toEqual([{ field: "idempotency-key", message: expect.stringContaining("path") }]);
    expect(await count("select count(*) n from clients where company_id = $1", [co.companyId])).toBe(2);
    expect(await count("select count(*) n from projects where company_id = $1", [co.companyId])).toBe(0);
  });

  it("the query string is part of the request: the same key with another query string is 422, with the same one a replay", async () => {
    const co = await newCompany();
    const key = randomUUID();
    const body = { company_name: "Query Co" };
    const first = await co.post("/clients?x=1", body, keyed(key));
    expect(first.status).toBe(200);
    for (const query of ["?x=2", "", "?x=1&y=2"]) {
      const other = expectError(await co.post(`/clients${query}`, body, keyed(key)), 422, "invalid_request");
      expect(other.details, query).toEqual([{ field: "idempotency-key", message: expect.stringContaining("query string") }]);
    }
    const again = await co.post("/clients?x=1", body, keyed(key));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await count("select count(*) n from clients where company_id = $1", [co.companyId])).toBe(1);
  });

  it("50 concurrent identical POST /orders make one project, one invoice, one outbox row and one answer", async () => {
    const co = await newCompany({ accountingSync: true });
    const clientId = await newClient(co);
    const key = randomUUID();
    const results = await allAtOnce(50, () => co.post("/orders", { client_id: clientId, title: "Rush" }, keyed(key)));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    for (const r of results) expect(r.body).toEqual(results[0].body);
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(49);
    expect(await count("select count(*) n from projects where company_id = $1", [co.companyId])).toBe(1);
    expect(await count("select count(*) n from invoices where company_id = $1", [co.companyId])).toBe(1);
    expect(await count("select count(*) n from accounting_outbox where company_id = $1", [co.companyId])).toBe(1);
  });

  it("keys are per company: company B's request with company A's key gets its own result", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const key = randomUUID();
    const ra = await a.post("/clients", { company_name: "A" }, keyed(key));
    const rb = await b.post("/clients", { company_name: "B" }, keyed(key));
    expect(rb.status).toBe(200);
    expect(rb.headers.get("idempotent-replayed")).toBeNull();
    expect(rb.body.client.id).not.toBe(ra.body.client.id);
    expect(rb.body.client.company_name).toBe("B");
    expect(await count("select count(*) n from clients where company_id = $1", [b.companyId])).toBe(1);
  });

  it("does not store 4xx answers: a corrected retry with the same key writes", async () => {
    const co = await newCompany();
    const key = randomUUID();
    expectError(await co.post("/clients", { company_name: "" }, keyed(key)), 400, "invalid_request");
    // A 400 thrown inside the write (unknown client) rolls back the key with it.
    expectError(await co.post("/orders", { client_id: 2_000_000_000, title: "T" }, keyed(key)), 400, "invalid_request");
    const ok = await co.post("/clients", { company_name: "Fixed" }, keyed(key));
    expect(ok.status).toBe(200);
    expect(ok.headers.get("idempotent-replayed")).toBeNull();
    expect(await count("select count(*) n from idempotency_keys where company_id = $1", [co.companyId])).toBe(1);
  });

  it("a key past its 24 hours is replaced, not replayed", async () => {
    const co = await newCompany();
    const key = randomUUID();
    const first = await co.post("/clients", { company_name: "Old" }, keyed(key));
    await sql("update idempotency_keys set expires_at = now() - interval '1 second' where company_id = $1", [co.companyId]);
    const fresh = await co.post("/clients", { company_name: "New" }, keyed(key));
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    expect(fresh.body.client.id).not.toBe(first.body.client.id);
  });

  it.each([
    ["empty", ""],
    ["longer than 255", "k".repeat(256)],
    ["non-printable", "a\tb"],
    ["non-ASCII", "clé"],
  ])("rejects a malformed key (%s) with 400, writing nothing", async (_label, key) => {
    const co = await newCompany();
    const err = expectError(await co.post("/clients", { company_name: "X" }, keyed(key)), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "idempotency-key", message: expect.any(String) }]);
    expect(await count("select count(*) n from clients where company_id = $1", [co.companyId])).toBe(0);
  });

  it("accepts a 255-character key", async () => {
    const co = await newCompany();
    const res = await co.post("/clients", { company_name: "Long" }, keyed("k".repeat(255)));
    expect(res.status).toBe(200);
  });

  it("20 concurrent identical POST /orders/{id}/items add one item (and one outbox update) beside a differently keyed one", async () => {
    const co = await newCompany({ accountingSync: true });
    const { project } = await newOrder(co);
    const key = randomUUID();
    const [other, ...results] = await Promise.all([
      co.post(`/orders/${project.id}/items`, { title: "Other", unit_price: "2.00" }, keyed(randomUUID())),
      ...Array.from({ length: 20 }, () => co.post(`/orders/${project.id}/items`, { title: "Caps", unit_price: "1.00" }, keyed(key))),
    ]);
    expect(other.status).toBe(200);
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (const r of results) expect(r.body).toEqual(results[0].body);
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(19);
    const items = await sql<{ title: string; position: number }>(
      "select title, position from invoice_items where company_id = $1 and deleted_at is null order by position",
      [co.companyId],
    );
    expect(items.map((i) => i.title).sort()).toEqual(["Caps", "Other"]);
    expect(items.map((i) => i.position)).toEqual([0, 1]);
    // The order's create row and one update per added item.
    expect(await count("select count(*) n from accounting_outbox where company_id = $1", [co.companyId])).toBe(3);
  });

  it("payments and artworks take keys too; another company's order is 404 and stores nothing", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { project } = await newOrder(a);
    const key = randomUUID();
    expectError(await b.post(`/orders/${project.id}/payments`, { amount: 10 }, keyed(key)), 404, "not_found");
    expect(await count("select count(*) n from idempotency_keys where company_id = $1", [b.companyId])).toBe(0);
    const paid = await a.post(`/orders/${project.id}/payments`, { amount: 10 }, keyed(key));
    expect(paid.status).toBe(200);
    expect((await a.post(`/orders/${project.id}/payments`, { amount: 10 }, keyed(key))).headers.get("idempotent-replayed")).toBe("true");
    const artKey = randomUUID();
    const art = await a.post(`/orders/${project.id}/artworks`, { status: "approved" }, keyed(artKey));
    const artAgain = await a.post(`/orders/${project.id}/artworks`, { status: "approved" }, keyed(artKey));
    expect(artAgain.body).toEqual(art.body);
    expect(await count("select count(*) n from payments where company_id = $1", [a.companyId])).toBe(1);
    expect(await count("select count(*) n from artworks where company_id = $1", [a.companyId])).toBe(1);
  });

  it("the cron purge removes expired keys only", async () => {
    const co = await newCompany();
    await co.post("/clients", { company_name: "Kept" }, keyed("kept"));
    await co.post("/clients", { company_name: "Gone" }, keyed("gone"));
    await sql("update idempotency_keys set expires_at = now() - interval '1 second' where company_id = $1 and key = 'gone'", [
      co.companyId,
    ]);
    expect(await purgeExpiredIdempotencyKeys(db())).toBeGreaterThanOrEqual(1);
    const left = await sql<{ key: string }>("select key from idempotency_keys where company_id = $1", [co.companyId]);
    expect(left.map((r) => r.key)).toEqual(["kept"]);
  });

  it("every operation that declares the key honours it: the same key and body answer the first answer again, replayed, writing nothing more", async () => {
    const co = await newCompany();
    const { concrete, body } = await populated(co);
    const conforms = await documentChecker();
    const operations = (await tokenOperations()).filter(declares("idempotency-key"));
    expect(operations.length).toBeGreaterThanOrEqual(8);
    // A re-sent delivery is attempted in the background meanwhile, landing during this operation's check
    // or a later one's: its row, and its endpoint's failure streak, may move on by themselves.
    const rows = async () => {
      const all = await companyRows(co.companyId);
      const endpoints = (all.webhook_endpoints ?? []) as Record<string, unknown>[];
      return {
        ...all,
        webhook_deliveries: [],
        webhook_endpoints: endpoints.map(({ failure_streak: _, failing_since: __, updated_at: ___, ...endpoint }) => endpoint),
      };
    };
    for (const operation of inRunnableOrder(operations)) {
      const what = `${operation.method.toUpperCase()} ${operation.path}`;
      const key = randomUUID();
      const send = () =>
        call(operation.method.toUpperCase(), concrete(operation), { token: co.token, body: body(operation), ...keyed(key) });
      const first = await send();
      expect(first.status, `${what}: ${JSON.stringify(first.body)}`).toBe(200);
      expect(first.headers.get("idempotent-replayed"), what).toBeNull();
      const written = await rows();
      const again = await send();
      expect(again.status, what).toBe(200);
      expect(again.headers.get("idempotent-replayed"), what).toBe("true");
      expect(again.body, what).toEqual(first.body);
      conforms(operation, again);
      expect(await rows(), what).toEqual(written);
    }
  });

  it("every POST declares the header, the 422 and Idempotent-Replayed in the OpenAPI document", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const posts = Object.entries(doc.paths as Record<string, any>).filter(([, item]) => item.post);
    expect(posts.length).toBeGreaterThanOrEqual(5);
    for (const [path, item] of posts) {
      const op = item.post;
      expect(
        op.parameters?.map((p: any) => `${p.in}:${p.name}`),
        path,
      ).toContain("header:idempotency-key");
      expect(Object.keys(op.responses), path).toContain("422");
      expect(Object.keys(op.responses["200"].headers), path).toContain("Idempotent-Replayed");
    }
  });
});
