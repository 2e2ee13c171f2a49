import { randomUUID } from "node:crypto";
import { beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { asRequest, expectError, newCompany, sql, type TestCompany } from "../../../test/support/api";
import { newClient, newOrder } from "../../../test/support/orders";

const CONTEXT_FIELDS = [
  "thread_id",
  "legacy_thread_id",
  "sender_email",
  "client_id",
  "client_data",
  "clients_data",
  "orders_data",
  "selected_order_id",
  "participant_emails",
  "participants_data",
  "fetched_at",
  "updated_at",
].sort();

interface Tenant {
  co: TestCompany;
  clientId: number;
  projectId: number;
}

async function tenant(): Promise<Tenant> {
  const co = await newCompany();
  const clientId = await newClient(co, { company_name: "Mail Client" });
  const { project } = await newOrder(co, { client_id: clientId, title: "Mail order" });
  return { co, clientId, projectId: project.id };
}

let a: Tenant;
let b: Tenant;
let missingClientId: number;
let missingProjectId: number;

// Fresh companies per test: isolation, and each token stays far below the rate limit.
beforeEach(async () => {
  [a, b] = await Promise.all([tenant(), tenant()]);
});

beforeAll(async () => {
  // Ids that no client / project has (yet): above every existing one.
  missingClientId = (await sql<{ n: number }>("select coalesce(max(id), 0) + 1000000 as n from clients"))[0].n;
  missingProjectId = (await sql<{ n: number }>("select coalesce(max(id), 0) + 1000000 as n from projects"))[0].n;
});

const newId = () => `ctx-${randomUUID()}`;

/** Loads one cache row through the admin import and returns its legacy id. */
async function cache(fields: Record<string, unknown>): Promise<string> {
  const legacy_thread_id = newId();
  await a.co.load({ mail_thread_contexts: [{ legacy_thread_id, ...fields }] });
  return legacy_thread_id;
}

const read = (co: TestCompany, id: string) => co.get(`/mail/threads/${encodeURIComponent(id)}`, asRequest("hidden-or-absent"));

/** Asserts the row is hidden from `co` exactly as a row that does not exist. */
async function expectHidden(co: TestCompany, id: string) {
  const [hidden, absent] = await Promise.all([read(co, id), read(co, newId())]);
  expectError(hidden, 404, "not_found");
  expect(hidden.body).toEqual(absent.body);
}

async function expectVisible(co: TestCompany, id: string) {
  const res = await read(co, id);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.legacy_thread_id).toBe(id);
  return res.body;
}

describe("GET /mail/threads/{legacyThreadId}", () => {
  it("returns the JSON members' numbers exactly as stored, beyond what a double holds", async () => {
    const id = newId();
    await sql(
      `insert into mail_thread_contexts (legacy_thread_id, client_id, client_data, orders_data, participant_emails)
       values ($1, $2, '{"gmail_id": 12345678901234567890, "ratio": 0.1000000000000000055511151231257827}'::jsonb, '[{"id": 18446744073709551617}]'::jsonb, null)`,
      [id, String(a.clientId)],
    );
    const res = await fetch(`${inject("apiUrl")}/mail/threads/${id}`, { headers: { authorization: `Bearer ${a.co.token}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"gmail_id": 12345678901234567890');
    expect(text).toContain('"ratio": 0.1000000000000000055511151231257827');
    expect(text).toContain('[{"id": 18446744073709551617}]');
    expect(JSON.parse(text).participant_emails).toBeNull();
  });

  it("returns exactly the §2.5 fields, JSON members as stored", async () => {
    const row = {
      thread_id: "thread-1",
      sender_email: "buyer@example.com",
      client_id: String(a.clientId),
      client_data: { id: a.clientId, name: "Mail Client", extra: { deep: [1, "two", null] } },
      clients_data: [{ id: a.clientId }, "loose string", 7],
      orders_data: [{ id: a.projectId, title: "Mail order" }],
      selected_order_id: String(a.projectId),
      participant_emails: ["buyer@example.com", "rep@shop.example"],
      participants_data: [{ email: "buyer@example.com", role: "to" }],
      fetched_at: "2026-11-21T13:37:00Z",
      updated_at: "2026-11-21T15:37:00.250+02:00",
    };
    const id = await cache(row);
    const body = await expectVisible(a.co, id);
    expect(Object.keys(body).sort()).toEqual(CONTEXT_FIELDS);
    expect(body).toEqual({
      ...row,
      legacy_thread_id: id,
      fetched_at: "2026-11-21T13:37:00.000Z",
      updated_at: "2026-11-21T13:37:00.250Z",
    });
  });

  it("answers 404 when no row exists, and 400 for an over-long id", async () => {
    expectError(await read(a.co, newId()), 404, "not_found");
    const err = expectError(await read(a.co, "x".repeat(256)), 400, "invalid_request");
    expect(err.details.map((d: { field: string }) => d.field)).toEqual(["legacyThreadId"]);
  });

  it("decodes URL-encoded ids (slashes, spaces, unicode)", async () => {
    const id = `${newId()}/a b/ü`;
    await a.co.load({ mail_thread_contexts: [{ legacy_thread_id: id, client_id: String(a.clientId) }] });
    await expectVisible(a.co, id);
  });

  describe("tie through client_id", () => {
    it("ties to the company owning the client, and to no other", async () => {
      const id = await cache({ client_id: String(a.clientId) });
      await expectVisible(a.co, id);
      await expectHidden(b.co, id);
    });

    it("negative twin: another company's client does not tie", async () => {
      const id = await cache({ client_id: String(b.clientId) });
      await expectHidden(a.co, id);
      await expectVisible(b.co, id);
    });

    it("a client id that exists nowhere ties to no one", async () => {
      const id = await cache({ client_id: String(missingClientId) });
      await expectHidden(a.co, id);
      await expectHidden(b.co, id);
    });

    it("surrounding blanks are ignored; a soft-deleted client still ties", async () => {
      await expectVisible(a.co, await cache({ client_id: ` ${a.clientId} ` }));
      const gone = (await a.co.post("/clients", { company_name: "Gone" })).body.client.id;
      expect((await a.co.patch(`/clients/${gone}`, { deleted: true })).status).toBe(200);
      await expectVisible(a.co, await cache({ client_id: String(gone) }));
    });

    it.each([
      ["letters", "abc"],
      ["a decimal with a leading zero", "07.5"],
      ["12.5", "12.5"],
      ["a negative id", "-1"],
      ["ten digits beyond int4", "9999999999"],
      ["int4 max + 1", "2147483648"],
      ["eleven digits", "99999999999"],
      ["an id beyond int8", "99999999999999999999999"],
      ["an empty string", ""],
      ["an id with a suffix", "1x"],
      ["an exponent", "1e3"],
    ])("client_id as %s never errors and does not tie", async (_what, value) => {
      const id = await cache({ client_id: value });
      await expectHidden(a.co, id);
    });
  });

  describe("tie through order ids in orders_data", () => {
    it.each(["id", "order_id", "project_id"])(
      "orders_data[*].%s (number or numeric string) ties to the order's company only",
      async (key) => {
        for (const value of [a.projectId, String(a.projectId)]) {
          const id = await cache({ orders_data: [{ title: "first" }, { [key]: value }] });
          await expectVisible(a.co, id);
          await expectHidden(b.co, id);
        }
      },
    );

    it.each(["id", "order_id", "project_id"])("negative twin: orders_data[*].%s of another company's order does not tie", async (key) => {
      const id = await cache({ orders_data: [{ [key]: b.projectId }] });
      await expectHidden(a.co, id);
      await expectVisible(b.co, id);
    });

    it("an order id that exists nowhere ties to no one", async () => {
      const id = await cache({ orders_data: [{ id: missingProjectId }] });
      await expectHidden(a.co, id);
      await expectHidden(b.co, id);
    });

    it("a whole JSON number written as 42.0 ties (jsonb keeps the scale)", async () => {
      const id = newId();
      await sql(`insert into mail_thread_contexts (legacy_thread_id, orders_data) values ($1, $2::jsonb)`, [
        id,
        `[{"id": ${a.projectId}.0}]`,
      ]);
      await expectVisible(a.co, id);
      await expectHidden(b.co, id);
    });

    it("a soft-deleted order still ties", async () => {
      const projectId = (await newOrder(a.co, { client_id: a.clientId, title: "Old" })).project.id;
      await sql("update projects set deleted_at = now() where id = $1", [projectId]);
      await expectVisible(a.co, await cache({ orders_data: [{ id: projectId }] }));
    });

    it("other places and keys holding the order id do not tie", async () => {
      const p = a.projectId;
      const shapes: Record<string, unknown>[] = [
        { selected_order_id: String(p) },
        { orders_data: [p] }, // bare scalar
        { orders_data: [String(p)] },
        { orders_data: [[{ id: p }]] }, // nested array
        { orders_data: { id: p } }, // object, not array
        { orders_data: [{ order: { id: p } }] }, // nested deeper
        { orders_data: [{ orderId: p }] }, // key not in the list
        { clients_data: [{ order_id: p }] }, // order keys count only in orders_data
        { participants_data: [{ project_id: p }] },
        { client_data: { order_id: p } },
      ];
      for (const shape of shapes) await expectHidden(a.co, await cache(shape));
    });

    it.each([
      ["a decimal", 12.5],
      ["a decimal string", "12.5"],
      ["letters", "abc"],
      ["null", null],
      ["a boolean", true],
      ["an object", { id: 1 }],
      ["an array", [1]],
      ["a huge number", 1e300],
      ["int4 max + 1", 2147483648],
      ["a ten-digit string beyond int4", "9999999999"],
      ["a negative number", -1],
      ["zero", 0],
      ["an empty string", ""],
    ])("orders_data[*].id as %s never errors and does not tie", async (_what, value) => {
      await expectHidden(a.co, await cache({ orders_data: [{ id: value }] }));
    });
  });

  describe("tie through a company id inside the cached JSON", () => {
    const places = {
      "client_data.company_id": (co: number | string) => ({ client_data: { name: "x", company_id: co } }),
      "client_data.companyId": (co: number | string) => ({ client_data: { companyId: co } }),
      "clients_data[*].company_id": (co: number | string) => ({ clients_data: [{ id: 1 }, { company_id: co }] }),
      "clients_data[*].companyId": (co: number | string) => ({ clients_data: [{ companyId: co }] }),
      "orders_data[*].company_id": (co: number | string) => ({ orders_data: [{ title: "t", company_id: co }] }),
      "orders_data[*].companyId": (co: number | string) => ({ orders_data: [{ companyId: co }] }),
      "participants_data[*].company_id": (co: number | string) => ({ participants_data: [{ email: "p@x.example", company_id: co }] }),
      "participants_data[*].companyId": (co: number | string) => ({ participants_data: [{ companyId: co }] }),
    };

    it.each(Object.keys(places))("%s (number or numeric string) ties to that company only", async (place) => {
      const shape = places[place as keyof typeof places];
      for (const value of [a.co.companyId, String(a.co.companyId)]) {
        const id = await cache(shape(value));
        await expectVisible(a.co, id);
        await expectHidden(b.co, id);
      }
    });

    it.each(Object.keys(places))("negative twin: %s of another company does not tie", async (place) => {
      const id = await cache(places[place as keyof typeof places](b.co.companyId));
      await expectHidden(a.co, id);
      await expectVisible(b.co, id);
    });

    it("company ids in other places or shapes do not tie", async () => {
      const co = a.co.companyId;
      const shapes: Record<string, unknown>[] = [
        { client_data: [{ company_id: co }] }, // client_data must be an object
        { client_data: { client: { company_id: co } } }, // nested deeper
        { client_data: { company: co } }, // key not in the list
        { client_data: { company_id: `${co}.5` } },
        { client_data: { company_id: `${co}abc` } },
        { clients_data: { company_id: co } }, // object, not array
        { clients_data: [[{ company_id: co }]] }, // nested array
        { orders_data: [{ client: { companyId: co } }] },
        { participants_data: [co] },
        { participant_emails: [{ company_id: co }] }, // not one of the four JSON members
        { sender_email: String(co), thread_id: String(co), selected_order_id: String(co) },
      ];
      for (const shape of shapes) await expectHidden(a.co, await cache(shape));
    });
  });

  it("odd shapes everywhere never cause an error and do not tie", async () => {
    const shapes: Record<string, unknown>[] = [
      {},
      { client_data: null, clients_data: null, orders_data: null, participants_data: null, participant_emails: null },
      { client_data: "text", clients_data: "text", orders_data: "text", participants_data: "text" },
      { client_data: 42, clients_data: 42, orders_data: 42, participants_data: 42 },
      { client_data: true, clients_data: false, orders_data: true, participants_data: false },
      { client_data: [], clients_data: {}, orders_data: {}, participants_data: {} },
      { client_data: [[[]]], clients_data: [[[]]], orders_data: [[[null]]], participants_data: [null, 1, "x", [], {}] },
      { orders_data: [null, 1, "x", [], {}, { id: null }, { id: [] }, { id: {} }] },
    ];
    for (const shape of shapes) {
      const id = await cache(shape);
      await expectHidden(a.co, id);
      await expectHidden(b.co, id);
    }
  });

  it("an odd shape in one member does not stop a readable tie in another", async () => {
    const id = await cache({
      client_id: "abc",
      client_data: "not an object",
      clients_data: { not: "an array" },
      orders_data: [null, "x", { id: "12.5" }, { id: a.projectId }],
      participants_data: 7,
    });
    await expectVisible(a.co, id);
    await expectHidden(b.co, id);
  });

  it("a row tied to two companies is visible to both", async () => {
    const id = await cache({ client_id: String(a.clientId), participants_data: [{ company_id: b.co.companyId }] });
    await expectVisible(a.co, id);
    await expectVisible(b.co, id);
  });
});

describe("import section mail_thread_contexts", () => {
  it("resolves client_ref, replaces a row with the same legacy id, and defaults timestamps to now", async () => {
    const id = newId();
    const ids = await a.co.load({
      clients: [{ ref: "c", company_name: "Ref Co" }],
      mail_thread_contexts: [{ legacy_thread_id: id, client_ref: "c", orders_data: [{ id: 1 }] }],
    });
    let body = await expectVisible(a.co, id);
    expect(body.client_id).toBe(String(ids.c));
    expect(Number.isNaN(Date.parse(body.fetched_at))).toBe(false);

    await a.co.load({ mail_thread_contexts: [{ legacy_thread_id: id, client_id: ids.c, fetched_at: null }] });
    body = await expectVisible(a.co, id);
    expect(body).toMatchObject({ client_id: String(ids.c), orders_data: null, fetched_at: null });
  });

  it("rejects unknown fields, bad timestamps, duplicate ids and client_ref with client_id, loading nothing", async () => {
    const id = newId();
    const bad = [
      [{ legacy_thread_id: id, company: 1 }],
      [{ legacy_thread_id: id, fetched_at: "yesterday" }],
      [{ legacy_thread_id: id }, { legacy_thread_id: id }],
      [{ legacy_thread_id: id, client_ref: "x", client_id: "1" }],
      [{ legacy_thread_id: "" }],
    ];
    for (const records of bad) await expect(a.co.load({ mail_thread_contexts: records })).rejects.toThrow(/mail_thread_contexts\[\d\]/);
    expect(await sql("select 1 from mail_thread_contexts where legacy_thread_id = $1", [id])).toEqual([]);
  });
});
