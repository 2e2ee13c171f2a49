import { type SQL, sql as sqlOf } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { overlapped } from "../../../test/fakes/server";
import { SERVICE_PATH } from "../../../test/fakes/supplier-a";
import { db, expectError, newCompany, sql, type TestCompany, workerLogLines } from "../../../test/support/api";
import { addOrder, connectSupplierA, connectSupplierB, leaked, useFakeSuppliers } from "../../../test/support/products";
import { rowsOf } from "../../platform/sql-kit";
import { searchInvoiceLines, WALK } from "./queries";

const fakes = useFakeSuppliers();
/** Every credential any test here stored: none may show up in a response or a log line. */
const secrets: object[] = [];
const responses: unknown[] = [];

async function search(co: TestCompany, params: Record<string, string>) {
  const res = await co.get(`/products/search?${new URLSearchParams(params)}`);
  responses.push(res.body);
  return res;
}

async function connectBoth(co: TestCompany, scenarioA = "ok", scenarioB = "ok") {
  secrets.push(await connectSupplierA(co.companyId, fakes.a, scenarioA), await connectSupplierB(co.companyId, fakes.b, scenarioB));
}

/**
 * `count` lines on one new live order of `co`, titled by the SQL expression `title(i)` of i = 0 … count - 1, the
 * later the newer (one second apart, in the past); their ids in order of i.
 */
async function addLines(co: TestCompany, count: number, title: (i: string) => string) {
  const { invoiceId } = await addOrder(co, [{ title: "First line" }]);
  const rows = await sql<{ id: number; position: number }>(
    `insert into invoice_items (company_id, invoice_id, title, position, created_at, updated_at)
     select $1, $2, ${title("i")}, i + 1, now() - interval '1 day' + make_interval(secs => i), now()
     from generate_series(0, $3::int - 1) i returning id, position`,
    [co.companyId, invoiceId, count],
  );
  return rows.sort((a, b) => a.position - b.position).map((r) => r.id);
}

/** Every node of the plan of `statement`, run (EXPLAIN ANALYZE). */
async function explain(statement: SQL): Promise<Record<string, any>[]> {
  const result = await db().execute(sqlOf`explain (analyze, format json) ${statement}`);
  const nodes: Record<string, any>[] = [];
  const visit = (node: Record<string, any>) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(rowsOf<{ "QUERY PLAN": { Plan: Record<string, any> }[] }>(result)[0]["QUERY PLAN"][0].Plan);
  return nodes;
}

const CATALOG = [
  { ref: "tee", title: "Basic Tee — 1 color front print", sku: "TEE-1C", unit_price: "8.50", category: "T-Shirts" },
  { title: "Premium tee, 2 color print", sku: "TEE-2C", unit_price: 11, category: "T-Shirts" },
  { title: "Embroidered polo", sku: "POLO-EMB", unit_price: "24.00", description: "Left chest, up to 8k stitches" },
  { title: "100% cotton tote", unit_price: "6.25" },
  { title: "Hoodie deluxe", sku: "HOOD-1" },
];

describe("GET /products/search — local catalog", () => {
  it("matches titles case-insensitively, titles starting with q first, deleted items excluded", async () => {
    const co = await newCompany();
    const ids = await co.load({ catalog_items: CATALOG });
    await sql("update catalog_items set deleted_at = now() where company_id = $1 and title = 'Hoodie deluxe'", [co.companyId]);

    const res = await search(co, { q: "TEE", include: "local" });
    expect(res.status).toBe(200);
    expect(res.body.local_items.map((i: any) => i.title)).toEqual(["Basic Tee — 1 color front print", "Premium tee, 2 color print"]);
    expect(res.body.local_items[0]).toEqual({
      id: ids.tee,
      title: "Basic Tee — 1 color front print",
      sku: "TEE-1C",
      description: null,
      unit_price: "8.50",
      category: "T-Shirts",
      image_url: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body.local_items[1].unit_price).toBe("11.00");
    expect((await search(co, { q: "hoodie", include: "local" })).body.local_items).toEqual([]);
    // % and _ are literal, not wildcards
    expect((await search(co, { q: "100%", include: "local" })).body.local_items.map((i: any) => i.title)).toEqual(["100% cotton tote"]);
    expect((await search(co, { q: "%", include: "local" })).body.local_items.map((i: any) => i.title)).toEqual(["100% cotton tote"]);
    expect((await search(co, { q: "_", include: "local" })).body.local_items).toEqual([]);
  });

  it("blank or missing q returns only the 10 most recent local items; other sources are skipped", async () => {
    const co = await newCompany();
    await connectBoth(co);
    await co.load({ catalog_items: Array.from({ length: 12 }, (_, i) => ({ title: `Item ${i + 1}` })) });
    await addOrder(co, [{ title: "Item line" }]);
    const before = fakes.a.requests.length + fakes.b.requests.length;

    for (const params of [{}, { q: "   " }, { q: "" }] as Record<string, string>[]) {
      const res = await search(co, params);
      expect(res.status).toBe(200);
      expect(res.body.query).toBe("");
      expect(res.body.local_items.map((i: any) => i.title)).toEqual(Array.from({ length: 10 }, (_, i) => `Item ${12 - i}`));
      expect(res.body.supplier_b_styles).toEqual([]);
      expect(res.body.supplier_a).toEqual({ style: null, products: [], count: 0, summary: { colors: [], sizes: [], piece_price: null } });
      expect(res.body.invoice_lines).toEqual([]);
      expect(res.body.skipped.map((s: any) => [s.source, s.reason])).toEqual([
        ["supplier_b", "blank_query"],
        ["supplier_a", "blank_query"],
        ["lines", "blank_query"],
      ]);
    }
    expect(fakes.a.requests.length + fakes.b.requests.length).toBe(before);
  });
});

describe("GET /products/search — include", () => {
  it("restricts the sources; the other groups stay present and empty", async () => {
    const co = await newCompany();
    await connectBoth(co);
    await co.load({ catalog_items: [{ title: "PC54 tee, screen printed" }] });
    await addOrder(co, [{ title: "PC54 navy tees" }]);
    const countA = fakes.a.requests.length;
    const countB = fakes.b.requests.length;

    const res = await search(co, { q: "pc54", include: " lines , local,," });
    expect(res.status).toBe(200);
    expect(res.body.local_items).toHaveLength(1);
    expect(res.body.invoice_lines).toHaveLength(1);
    expect(res.body.supplier_b_styles).toEqual([]);
    expect(res.body.supplier_a.products).toEqual([]);
    expect(res.body.skipped).toEqual([]);
    expect(fakes.a.requests.length).toBe(countA);
    expect(fakes.b.requests.length).toBe(countB);

    const blank = await search(co, { q: "pc54", include: "" });
    expect(blank.body.supplier_a.count).toBe(15);
  });

  it("rejects an unknown token with 400 naming include", async () => {
    const co = await newCompany();
    const err = expectError(await search(co, { q: "tee", include: "local,sanmar" }), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "include", message: expect.stringContaining("sanmar") }]);
    expectError(await search(co, { q: "x".repeat(201) }), 400, "invalid_request");
  });
});

describe("GET /products/search — a large catalog and many lines (more than a search walks in list order)", () => {
  it("finds catalog matches beyond the first 10,000 titles: starts first, then by title, as for a small catalog", async () => {
    const co = await newCompany();
    // 10,050 titles that sort first and match nothing; then the matches, out of title order by id.
    await sql(
      `insert into catalog_items (company_id, title, unit_price) select $1, 'Aaa filler ' || lpad(i::text, 5, '0'), 1 from generate_series(1, 10050) i`,
      [co.companyId],
    );
    await co.load({
      catalog_items: [
        { title: "Zz striped zebra tee", unit_price: "1" },
        { title: "Zebra print tote", unit_price: "1" },
        { title: "Mm zebra cap", unit_price: "1" },
        { title: "Bb zebra socks (deleted)", unit_price: "1" },
      ],
    });
    await sql("update catalog_items set deleted_at = now() where company_id = $1 and title like 'Bb%'", [co.companyId]);
    const res = await search(co, { q: "ZEBRA", include: "local" });
    expect(res.body.local_items.map((i: any) => i.title)).toEqual(["Zebra print tote", "Mm zebra cap", "Zz striped zebra tee"]);
    // A common term: the first titles in order.
    const common = await search(co, { q: "filler 0", include: "local" });
    expect(common.body.local_items.map((i: any) => i.title)).toEqual(
      Array.from({ length: 25 }, (_, i) => `Aaa filler ${String(i + 1).padStart(5, "0")}`),
    );
  }, 60_000);

  it(`finds the newest live invoice lines behind the ${WALK.lines.toLocaleString("en")} newest that do not match`, async () => {
    const co = await newCompany();
    const old = await addOrder(co, [{ title: "Quokka hoodie 1" }, { title: "Quokka hoodie 2" }, { title: "Plain" }]);
    const gone = await addOrder(co, [{ title: "Quokka hoodie on a deleted order" }], { projectDeleted: true });
    const newer = await addLines(co, WALK.lines + 50, (i) => `'Filler line ' || ${i}`);
    await sql("update invoice_items set created_at = '2026-01-01' where id = any($1)", [[...old.items, ...gone.items]]);
    const res = await search(co, { q: "quokka", include: "lines" });
    expect(res.body.invoice_lines.map((l: any) => l.id)).toEqual([old.items[1], old.items[0]]);
    const common = await search(co, { q: "filler line", include: "lines" });
    expect(common.body.invoice_lines.map((l: any) => l.id)).toEqual([...newer].sort((a, b) => b - a).slice(0, 25));
  }, 60_000);

  it("answers a term in 1 % of the lines from a walk of about the lines its page needs, never reading every match", async () => {
    const co = await newCompany();
    // 4,000 lines, one in 100 a match, the newest first by created_at (not by id); among the newest matches
    // some are deleted or on a deleted order, which the page skips.
    const lines = await addLines(co, 4000, (i) => `case when ${i} % 100 = 7 then 'Quokka hoodie ' || ${i} else 'Filler line ' || ${i} end`);
    const matching = lines.filter((_, i) => i % 100 === 7);
    const gone = await addOrder(co, [{ title: "Quokka hoodie on a deleted order" }], { projectDeleted: true });
    await sql("update invoice_items set created_at = now() where id = any($1)", [gone.items]);
    await sql("update invoice_items set deleted_at = now() where id = any($1)", [matching.slice(-3)]);

    const res = await search(co, { q: "QUOKKA", include: "lines" });
    // The documented answer, the 25 newest live matches, newest first, from every match of the company.
    const expected = await sql<{ id: number }>(
      `select i.id from invoice_items i join invoices v on v.id = i.invoice_id join projects p on p.id = v.project_id
       where i.company_id = $1 and i.deleted_at is null and v.deleted_at is null and p.deleted_at is null
         and (i.title ilike '%quokka%' or i.description ilike '%quokka%')
       order by i.created_at desc, i.id desc limit 25`,
      [co.companyId],
    );
    expect(expected).toHaveLength(25);
    expect(res.body.invoice_lines.map((l: any) => l.id)).toEqual(expected.map((r) => r.id));

    // What the statement reads: the newest lines down to the page's last match (2,791 here: about 25 × 100),
    // and no other line: the fallback that reads every match (through the trigram indexes at scale) never runs.
    const plan = await explain(searchInvoiceLines(db(), co.companyId, "QUOKKA"));
    const scans = plan.filter((n) => n["Relation Name"] === "invoice_items" && n["Actual Loops"] > 0);
    const read = (n: Record<string, any>) => (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0)) * n["Actual Loops"];
    const describe = (n: Record<string, any>) => `${n["Node Type"]} ${n["Index Name"] ?? ""}: ${read(n)} rows`;
    expect(scans.map(describe)).toEqual([`Index Scan invoice_items_company_created_idx: ${read(scans[0])} rows`]);
    expect(read(scans[0])).toBeGreaterThan(2700);
    expect(read(scans[0])).toBeLessThan(2900);
  }, 60_000);
});

describe("GET /products/search — invoice lines", () => {
  it("returns the newest 25 live matches, newest first, whether or not the newest matches are on deleted orders", async () => {
    const co = await newCompany();
    const live = await addOrder(
      co,
      Array.from({ length: 30 }, (_, i) => ({ title: `Rally towel ${i}` })),
    );
    const gone = await addOrder(
      co,
      Array.from({ length: 10 }, (_, i) => ({ title: `Rally towel gone ${i}` })),
      { projectDeleted: true },
    );
    // Live lines one second apart, the deleted order's lines the newest of all.
    await sql("update invoice_items set created_at = '2026-01-01'::timestamptz + (id || ' seconds')::interval where id = any($1)", [
      live.items,
    ]);
    await sql("update invoice_items set created_at = '2026-06-01' where id = any($1)", [gone.items]);
    const byNewest = [...live.items].sort((a, b) => b - a);
    const newestLive = byNewest.slice(0, 25);
    const res = await search(co, { q: "rally towel", include: "lines" });
    expect(res.body.invoice_lines.map((l: any) => l.id)).toEqual(newestLive);
    // Fewer live matches than a page: all of them, newest first.
    await sql("update invoice_items set deleted_at = now() where id = any($1)", [newestLive.slice(3)]);
    const few = await search(co, { q: "rally towel", include: "lines" });
    expect(few.body.invoice_lines.map((l: any) => l.id)).toEqual([...byNewest.slice(0, 3), ...byNewest.slice(25)]);
  });

  it("matches title or description; skips deleted items and items of deleted invoices or orders", async () => {
    const co = await newCompany();
    const live = await addOrder(co, [
      { title: "Navy tees, front print", quantity: "24", unit_price: "9.75" },
      { title: "Setup fee", description: "Screen setup for NAVY tees" },
      { title: "Navy tees (cancelled line)", deleted: true },
      { title: "Hats" },
    ]);
    await addOrder(co, [{ title: "Navy tees in deleted order" }], { projectDeleted: true });
    await addOrder(co, [{ title: "Navy tees on deleted invoice" }], { invoiceDeleted: true });

    const res = await search(co, { q: "navy tee", include: "lines" });
    expect(res.status).toBe(200);
    expect(res.body.invoice_lines.map((l: any) => l.title).sort()).toEqual(["Navy tees, front print", "Setup fee"]);
    const line = res.body.invoice_lines.find((l: any) => l.title === "Navy tees, front print");
    expect(line).toMatchObject({
      id: live.items[0],
      invoice_id: live.invoiceId,
      order_id: live.projectId,
      quantity: "24",
      unit_price: "9.75",
      amount: "234.00",
      sizes: { M: 2 },
      position: 0,
    });
  });
});

describe("GET /products/search — supplier_b (S&S REST)", () => {
  it("returns the supplier's styles, calling it with HTTP Basic auth", async () => {
    const co = await newCompany();
    const creds = await connectSupplierB(co.companyId, fakes.b);
    secrets.push(creds);
    const res = await search(co, { q: "gildan", include: "supplier_b" });
    expect(res.status).toBe(200);
    expect(res.body.supplier_b_styles).toEqual([
      {
        style_id: 39,
        part_number: "00760",
        brand_name: "Gildan",
        style_name: "2000",
        title: "Ultra Cotton T-Shirt",
        base_category: "T-Shirts",
        image_url: "https://www.ssactivewear.com/Images/Style/39_fm.jpg",
        new_style: false,
      },
    ]);
    expect(res.body.skipped).toEqual([]);
    const request = fakes.b.requests.at(-1)!;
    expect(request.path).toBe("/v2/styles?search=gildan");
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${creds.account_number}:${creds.api_key}`).toString("base64")}`);

    const none = await search(co, { q: "no such style", include: "supplier_b" });
    expect(none.body.supplier_b_styles).toEqual([]);
    expect(none.body.skipped).toEqual([]);
  });
});

describe("GET /products/search — supplier_a (SanMar SOAP)", () => {
  it("extracts the style token and returns every row of the style with a summary", async () => {
    const co = await newCompany();
    const creds = await connectSupplierA(co.companyId, fakes.a);
    secrets.push(creds);
    const res = await search(co, { q: "navy pc54 tees", include: "supplier_a" });
    expect(res.status).toBe(200);
    const group = res.body.supplier_a;
    expect(group.style).toBe("PC54");
    expect(group.count).toBe(15);
    expect(group.products).toHaveLength(15);
    expect(group.summary).toEqual({
      colors: ["Navy", "Jet Black", "Athletic Heather"],
      sizes: ["S", "M", "L", "XL", "2XL"],
      piece_price: { min: "4.18", max: "6.48" },
    });
    expect(group.products[0]).toMatchObject({
      style: "PC54",
      brand_name: "Port & Company",
      title: "Port & Company Core Cotton Tee. PC54",
      description: "5.4-ounce, 100% cotton & a classic fit.",
      color: "Navy",
      catalog_color: "Navy",
      size: "S",
      size_index: 2,
      status: "Active",
      case_size: 72,
      piece_price: "4.18",
      case_price: "3.18",
      swatch_image_url: "https://cdnm.sanmar.com/swatch/gifs/Navy.gif",
    });

    // The request as SOAP 1.1 defines it (the fake also rejects anything else with a Client fault).
    const request = fakes.a.requests.at(-1)!;
    expect(request.method).toBe("POST");
    expect(request.path).toBe(SERVICE_PATH);
    expect(request.headers["content-type"]).toMatch(/^text\/xml/);
    expect(request.headers.soapaction).toBe('""');
    expect(request.body).toContain('xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"');
    expect(request.body).toContain("<impl:getProductInfoByStyleColorSize>");
    expect(request.body).toContain("<style>PC54</style>");
    expect(request.body).toContain(`<sanMarUserName>${creds.username}</sanMarUserName>`);
  });

  it('answers an unknown style ("Invalid style") with an empty group, not a skip', async () => {
    const co = await newCompany();
    secrets.push(await connectSupplierA(co.companyId, fakes.a));
    const res = await search(co, { q: "G500", include: "supplier_a" });
    expect(res.status).toBe(200);
    expect(res.body.supplier_a).toEqual({ style: "G500", products: [], count: 0, summary: { colors: [], sizes: [], piece_price: null } });
    expect(res.body.skipped).toEqual([]);
  });

  it("skips supplier_a without calling it when q holds no style token", async () => {
    const co = await newCompany();
    secrets.push(await connectSupplierA(co.companyId, fakes.a));
    const before = fakes.a.requests.length;
    const res = await search(co, { q: "navy tees", include: "supplier_a,local" });
    expect(res.status).toBe(200);
    expect(res.body.skipped).toEqual([{ source: "supplier_a", reason: "no_style_token", message: expect.any(String) }]);
    expect(fakes.a.requests.length).toBe(before);
  });
});

describe("GET /products/search — all sources together", () => {
  it("answers from all four sources, calling the suppliers concurrently", async () => {
    const co = await newCompany();
    // Both fakes hold their answer for 300 ms: run one after the other, the calls could not overlap.
    await connectBoth(co, "delay-300", "delay-300");
    await co.load({ catalog_items: [{ title: "ST350 performance tee, full color" }] });
    await addOrder(co, [{ title: "ST350 royal tees" }]);
    const sinceA = fakes.a.requests.length;
    const sinceB = fakes.b.requests.length;

    const res = await search(co, { q: "st350" });
    expect(res.status).toBe(200);
    expect(res.body.query).toBe("st350");
    expect(res.body.local_items.map((i: any) => i.title)).toEqual(["ST350 performance tee, full color"]);
    expect(res.body.invoice_lines.map((l: any) => l.title)).toEqual(["ST350 royal tees"]);
    expect(res.body.supplier_a).toMatchObject({
      style: "ST350",
      count: 8,
      summary: { colors: ["True Royal", "Black"], sizes: ["S", "M", "L", "XL"] },
    });
    expect(res.body.supplier_b_styles).toEqual([]); // the S&S fake has no ST350
    expect(res.body.skipped).toEqual([]);

    const a = fakes.a.requests.slice(sinceA);
    const b = fakes.b.requests.slice(sinceB);
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    expect(overlapped(a[0], b[0])).toBe(true);
  });
});

describe("GET /products/search — failing sources", () => {
  const cases: { source: "supplier_a" | "supplier_b"; scenario: string; valid?: boolean; reason: string }[] = [
    { source: "supplier_a", scenario: "status500", reason: "upstream_status" },
    { source: "supplier_a", scenario: "malformed", reason: "bad_response" },
    { source: "supplier_a", scenario: "garbage", reason: "bad_response" },
    { source: "supplier_a", scenario: "fault", reason: "upstream_fault" },
    { source: "supplier_a", scenario: "unauthorized", reason: "auth_failed" },
    { source: "supplier_a", scenario: "ok", valid: false, reason: "auth_failed" },
    { source: "supplier_b", scenario: "status500", reason: "upstream_status" },
    { source: "supplier_b", scenario: "malformed", reason: "bad_response" },
    { source: "supplier_b", scenario: "garbage", reason: "bad_response" },
    { source: "supplier_b", scenario: "unauthorized", reason: "auth_failed" },
    { source: "supplier_b", scenario: "ok", valid: false, reason: "auth_failed" },
  ];

  it.each(cases)(
    "$source $scenario (valid credentials: $valid) → empty group, skipped $reason, others still answer",
    async ({ source, scenario, valid, reason }) => {
      const co = await newCompany();
      const failing = source === "supplier_a" ? connectSupplierA : connectSupplierB;
      const working = source === "supplier_a" ? connectSupplierB : connectSupplierA;
      secrets.push(await failing(co.companyId, source === "supplier_a" ? (fakes.a as any) : (fakes.b as any), scenario, { valid }));
      secrets.push(await working(co.companyId, source === "supplier_a" ? (fakes.b as any) : (fakes.a as any)));
      await co.load({ catalog_items: [{ title: "Gildan 2000 tee" }] });
      await addOrder(co, [{ title: "Gildan 2000 order line" }]);

      const res = await search(co, { q: "2000" });
      expect(res.status).toBe(200);
      expect(res.body.skipped).toEqual([{ source, reason, message: expect.any(String) }]);
      expect(res.body.local_items).toHaveLength(1);
      expect(res.body.invoice_lines).toHaveLength(1);
      if (source === "supplier_a") {
        expect(res.body.supplier_a).toEqual({
          style: "2000",
          products: [],
          count: 0,
          summary: { colors: [], sizes: [], piece_price: null },
        });
        expect(res.body.supplier_b_styles.map((s: any) => s.style_id)).toEqual([39]);
      } else {
        expect(res.body.supplier_b_styles).toEqual([]);
        expect(res.body.supplier_a.count).toBe(6);
        expect(res.body.supplier_a.summary.piece_price).toEqual({ min: "3.70", max: "3.70" });
      }
    },
  );

  it("skips suppliers whose integration is missing or disabled, still answering 200", async () => {
    const co = await newCompany();
    secrets.push(await connectSupplierB(co.companyId, fakes.b, "ok", { enabled: false }));
    await co.load({ catalog_items: [{ title: "PC54 gildan tee" }] });
    const before = fakes.a.requests.length + fakes.b.requests.length;
    const res = await search(co, { q: "pc54 gildan" });
    expect(res.status).toBe(200);
    expect(res.body.local_items).toHaveLength(1);
    expect(res.body.skipped.map((s: any) => [s.source, s.reason])).toEqual([
      ["supplier_b", "integration_disabled"],
      ["supplier_a", "integration_missing"],
    ]);
    expect(fakes.a.requests.length + fakes.b.requests.length).toBe(before);
  });

  it("skips an integration whose stored credentials are incomplete", async () => {
    const co = await newCompany();
    await sql(
      "insert into supplier_integrations (company_id, provider, enabled, credentials, base_url) values ($1, 'supplier_a', true, $2, $3)",
      [co.companyId, JSON.stringify({ username: "only-a-user" }), fakes.a.url()],
    );
    const res = await search(co, { q: "pc54", include: "supplier_a" });
    expect(res.status).toBe(200);
    expect(res.body.skipped).toEqual([{ source: "supplier_a", reason: "credentials_incomplete", message: expect.any(String) }]);
  });
});

describe("GET /products/search — tenancy", () => {
  it("never shows company A's catalog items, invoice lines or integrations to company B", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const fresh = await newCompany();
    await connectBoth(a);
    await a.load({ catalog_items: [{ title: "Gildan 2000 house tee" }] });
    await addOrder(a, [{ title: "Gildan 2000 order line" }]);

    const seenByA = await search(a, { q: "2000" });
    expect(seenByA.body.local_items).toHaveLength(1);
    expect(seenByA.body.invoice_lines).toHaveLength(1);
    expect(seenByA.body.supplier_a.count).toBe(6);
    expect(seenByA.body.supplier_b_styles).toHaveLength(1);

    const before = fakes.a.requests.length + fakes.b.requests.length;
    const seenByB = await search(b, { q: "2000" });
    expect(seenByB.status).toBe(200);
    expect(seenByB.body).toEqual((await search(fresh, { q: "2000" })).body);
    expect(seenByB.body.local_items).toEqual([]);
    expect(seenByB.body.invoice_lines).toEqual([]);
    expect(seenByB.body.skipped.map((s: any) => s.reason)).toEqual(["integration_missing", "integration_missing"]);
    expect(fakes.a.requests.length + fakes.b.requests.length).toBe(before);
    expect((await search(b, {})).body.local_items).toEqual([]);

    expect(await sql("select title from catalog_items where company_id = $1 and deleted_at is null", [a.companyId])).toEqual([
      { title: "Gildan 2000 house tee" },
    ]);
  });
});

describe("credentials", () => {
  it("appear in no response and no Worker log line", async () => {
    expect(secrets.length).toBeGreaterThan(10);
    expect(leaked(JSON.stringify(responses), ...secrets)).toEqual([]);
    const logs = workerLogLines().join("\n");
    expect(logs).toContain("product source skipped"); // the failures above were logged…
    expect(leaked(logs, ...secrets)).toEqual([]); // …without credentials
  });
});
