import { describe, expect, it } from "vitest";
import { type ApiResponse, newCompany, sql, type TestCompany } from "../../../test/support/api";

/*
 * GET /clients?q= at every length, checked against the rule itself (computed here over the fixture):
 * a client matches when lower(q) is in its company name, "first last", email or phone, or, for a q of
 * digits and phone punctuation, when q's digits are in the phone's digits. Every page of every walk
 * (cursor and page) must carry exactly the matching clients, in order, with the exact total.
 */

interface Fixture {
  ref: string;
  company_name: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string;
}

const generic = (i: number): Fixture => ({
  ref: `g${i}`,
  company_name: `Generic Shop ${i}`,
  first_name: ["Ana", "Tom", "Maya", "Omar"][i % 4],
  last_name: ["Lopez", "Becker", "Garcia", "Smith"][i % 4],
  email: i % 3 ? `shop${i}@mail.example` : undefined,
});
const FIXTURE: Fixture[] = [
  { ref: "pct", company_name: "100% Cotton Club", phone: "555.010.4471" },
  { ref: "und", company_name: "Under_score Inc", phone: "+1 (555) 010-2030" },
  { ref: "bsl", company_name: "Back\\slash LLC", email: "bs@back.example" },
  { ref: "wu", company_name: "Lakeside Run", first_name: "Wei", last_name: "Wu", phone: "(212) 555-0199" },
  { ref: "ng", company_name: "Ng Embroidery", first_name: "Kim", last_name: "Ng" },
  { ref: "nes", company_name: "Peña Uniformes", first_name: "Ñéstor", last_name: "Peña" },
  ...Array.from({ length: 26 }, (_, i) => generic(i)),
  // A term common in the company but bunched at the end of the list: a walk in id order from the start
  // meets none of them, so the page must come from the index instead.
  ...Array.from({ length: 13 }, (_, i) => ({ ref: `k${i}`, company_name: `Kite Works ${i}`, phone: `(718) 555-01${10 + i}` })),
];

const QUERIES = [
  // one character
  ...["a", "k", "%", "_", "\\", "5", "-", "ñ", "É", "z", "q", "@", "("],
  // two characters
  ...["wu", "NG", "ñé", "0%", "r_", "k\\", "zq", "55", "5-", "(2", "01", "te", " w"],
  // three and more
  ...[
    "kit",
    "Kite Works 1",
    "cotton",
    "555-010",
    "(555) 010",
    "010 20",
    "5550104471",
    "0% c",
    "r_s",
    "k\\s",
    "nobody",
    "PEÑA",
    "mail.example",
  ],
];

const PHONE_QUERY = /^[\d\s()+\-./]+$/;

function matches(c: Fixture, q: string): boolean {
  const fullName = `${c.first_name ?? ""} ${c.last_name ?? ""}`.trim();
  const text = [c.company_name, fullName, c.email ?? "", c.phone ?? ""].join("\x1f").toLowerCase();
  if (text.includes(q.toLowerCase())) return true;
  const digits = q.replace(/\D/g, "");
  return digits !== "" && PHONE_QUERY.test(q) && (c.phone ?? "").replace(/\D/g, "").includes(digits);
}

/** Every page from `path` by cursor: ids in order, and every page's total. */
async function walk(co: TestCompany, path: string) {
  const ids: number[] = [];
  const totals = new Set<number>();
  let cursor: string | null = null;
  do {
    const res: ApiResponse = await co.get(cursor ? `${path}&cursor=${cursor}` : path);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    ids.push(...res.body.data.map((c: any) => c.id));
    totals.add(res.body.pagination.total);
    cursor = res.body.pagination.next_cursor;
    if (ids.length > 200) throw new Error("cursor walk does not end");
  } while (cursor);
  return { ids, totals: [...totals] };
}

async function loadFixture(co: TestCompany) {
  const ids = await co.load({ clients: FIXTURE });
  return new Map(FIXTURE.map((c) => [ids[c.ref] as number, c]));
}

/** The ids matching q among `clients` (id → fixture), in id order. */
const expected = (clients: Map<number, Fixture>, q: string) =>
  [...clients.entries()]
    .filter(([, c]) => matches(c, q.trim()))
    .map(([id]) => id)
    .sort((x, y) => x - y);

describe("GET /clients?q= at every length", () => {
  it("finds exactly the matching clients for every q, one character or more, with exact totals on every page, for each company alone", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const clientsA = await loadFixture(a);
    const clientsB = await loadFixture(b);
    for (const q of QUERIES) {
      for (const [co, clients] of [
        [a, clientsA],
        [b, clientsB],
      ] as const) {
        const want = expected(clients, q);
        const { ids, totals } = await walk(co, `/clients?per_page=2&q=${encodeURIComponent(q)}`);
        expect(ids, `q=${JSON.stringify(q)}`).toEqual(want);
        expect(totals, `q=${JSON.stringify(q)}`).toEqual([want.length]);
      }
    }
    // The fixture reaches every kind of answer: none, a few, most of the company.
    const sizes = QUERIES.map((q) => expected(clientsA, q).length);
    expect(Math.min(...sizes)).toBe(0);
    expect(Math.max(...sizes)).toBeGreaterThan(clientsA.size / 2);
  });

  it("pages by page number too, and counts what writes change: renames, new clients, soft deletes", async () => {
    const a = await newCompany();
    const clients = await loadFixture(a);
    const check = async (q: string) => {
      const want = expected(clients, q);
      for (const page of [1, 2, 3]) {
        const res = await a.get(`/clients?per_page=3&page=${page}&q=${encodeURIComponent(q)}`);
        expect(res.status).toBe(200);
        expect(
          res.body.data.map((c: any) => c.id),
          `q=${q} page=${page}`,
        ).toEqual(want.slice((page - 1) * 3, page * 3));
        expect(res.body.pagination.total, `q=${q}`).toBe(want.length);
      }
    };
    const qs = ["wu", "k", "ng", "kite", "5", "zq"];
    for (const q of qs) await check(q);

    const [wuId] = [...clients].find(([, c]) => c.ref === "wu")!;
    expect((await a.patch(`/clients/${wuId}`, { last_name: "Zqa", phone: null })).status).toBe(200);
    Object.assign(clients.get(wuId)!, { last_name: "Zqa", phone: undefined });
    const created = await a.post("/clients", { company_name: "Wu & Ng Kites", phone: "555 0000" });
    expect(created.status).toBe(200);
    clients.set(created.body.client.id, { ref: "new", company_name: "Wu & Ng Kites", phone: "555 0000" });
    const [kiteId] = [...clients].find(([, c]) => c.ref === "k3")!;
    expect((await a.patch(`/clients/${kiteId}`, { deleted: true })).status).toBe(200);
    clients.delete(kiteId);
    for (const q of qs) await check(q);
  });

  it("searches among a sync's changes and among tombstones by the same rule", async () => {
    const a = await newCompany();
    const clients = await loadFixture(a);
    const [goneId] = [...clients].find(([, c]) => c.ref === "k5")!;
    expect((await a.patch(`/clients/${goneId}`, { deleted: true })).status).toBe(200);
    // Changed long enough ago for a sync to see them; one instant, so a sync lists them in id order.
    await sql("update clients set updated_at = '2026-01-01T00:00:00Z' where company_id = $1", [a.companyId]);
    const live = new Map([...clients].filter(([id]) => id !== goneId));
    for (const q of ["k", "wu", "kite", "5"]) {
      const sync = await walk(a, `/clients?per_page=2&updated_since=1970-01-01T00:00:00Z&q=${encodeURIComponent(q)}`);
      expect(sync.ids, `sync q=${q}`).toEqual(expected(live, q));
      expect(sync.totals, `sync q=${q}`).toEqual([expected(live, q).length]);
      for (const sync of ["", "&updated_since=1970-01-01T00:00:00Z"]) {
        const all = await walk(a, `/clients?per_page=2&include_deleted=true${sync}&q=${encodeURIComponent(q)}`);
        expect(all.ids, `include_deleted${sync} q=${q}`).toEqual(expected(clients, q));
        expect(all.totals, `include_deleted${sync} q=${q}`).toEqual([expected(clients, q).length]);
      }
    }
  });
});
