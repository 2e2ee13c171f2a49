import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { db, newCompany, sql } from "../../../test/support/api";
import { importFile } from "../commands";

describe("import: catalog_items", () => {
  it("imports the demo seed's catalog, searchable right away", async () => {
    const co = await newCompany();
    const seed = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../demo-seed.json"), "utf8"));
    const ids = await co.load(seed);
    expect(typeof ids["tee-1c"]).toBe("number");
    const [{ n }] = await sql<{ n: number }>("select count(*)::int as n from catalog_items where company_id = $1", [co.companyId]);
    expect(n).toBe(seed.catalog_items.length);

    const res = await co.get("/products/search?q=embroidery&include=local");
    expect(res.status).toBe(200);
    expect(res.body.local_items.length).toBeGreaterThanOrEqual(3);
    expect(res.body.local_items.every((i: any) => /embroidery/i.test(i.title))).toBe(true);
    const sample = await co.get("/products/search");
    expect(sample.body.local_items).toHaveLength(10);
  });

  it("stores money exactly from a string or a number", async () => {
    const co = await newCompany();
    await co.load({
      catalog_items: [
        { title: "A", unit_price: "0.1" },
        { title: "B", unit_price: 12.5 },
        { title: "C", unit_price: null },
        { title: "D" },
      ],
    });
    expect(await sql("select title, unit_price from catalog_items where company_id = $1 order by title", [co.companyId])).toEqual([
      { title: "A", unit_price: "0.10" },
      { title: "B", unit_price: "12.50" },
      { title: "C", unit_price: null },
      { title: "D", unit_price: null },
    ]);
  });

  it("rejects an invalid record naming it, and writes nothing from the file", async () => {
    const co = await newCompany();
    const bad = [
      { catalog_items: [{ title: "ok" }, { title: "   " }], field: /catalog_items\[1\]\.title/ },
      { catalog_items: [{ title: "x", unit_price: "1.234" }], field: /catalog_items\[0\]\.unit_price/ },
      { catalog_items: [{ title: "x", unit_price: -1 }], field: /catalog_items\[0\]\.unit_price/ },
      { catalog_items: [{ title: "x", price: "1.00" }], field: /catalog_items\[0\]\.price/ },
      { catalog_items: [{ title: "x", image_url: "not a url" }], field: /catalog_items\[0\]\.image_url/ },
    ];
    for (const { field, ...data } of bad) {
      await expect(
        importFile(db(), { companyId: co.companyId, data: { clients: [{ ref: "c", company_name: "Kept?" }], ...data } }),
      ).rejects.toThrow(field);
    }
    expect(await sql("select 1 from catalog_items where company_id = $1", [co.companyId])).toEqual([]);
    expect(await sql("select 1 from clients where company_id = $1", [co.companyId])).toEqual([]);
  });
});
