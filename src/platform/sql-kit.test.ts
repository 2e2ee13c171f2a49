import { asc, desc, eq, getTableColumns } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db, newCompany, sql } from "../../test/support/api";
import { companies } from "../db/schema/companies";
import { catalogItems, supplierIntegrations } from "../db/schema/products";
import { jsonRows } from "./sql-kit";

/** The rows of `query` fetched through jsonRows, inside a one-row statement. */
async function viaJson<F extends Parameters<typeof jsonRows>[0]>(companyId: number, fields: F, query: Parameters<typeof jsonRows>[1]) {
  const [row] = await db()
    .select({ rows: jsonRows(fields, query) })
    .from(companies)
    .where(eq(companies.id, companyId));
  return row.rows;
}

describe("jsonRows", () => {
  it("returns exactly the rows the query returns: exact numerics, timestamps, nulls, order", async () => {
    const co = await newCompany();
    await co.load({
      catalog_items: [
        { title: "b tee", unit_price: "8.50", sku: "B" },
        { title: "a tee", unit_price: "999999999999.99", description: "big" },
        { title: "c tee" },
      ],
    });
    const fields = getTableColumns(catalogItems);
    const query = () =>
      db().select(fields).from(catalogItems).where(eq(catalogItems.companyId, co.companyId)).orderBy(desc(catalogItems.title));

    const direct = await query();
    const rows = await viaJson(co.companyId, fields, query());
    expect(rows).toEqual(direct);
    expect(rows.map((r) => r.unitPrice)).toEqual([null, "8.50", "999999999999.99"]); // not floats
    expect(rows[0].createdAt).toBeInstanceOf(Date);
  });

  it("keeps jsonb, booleans and a selection of columns from joined tables; no rows is []", async () => {
    const co = await newCompany();
    await sql("insert into supplier_integrations (company_id, provider, enabled, credentials) values ($1, 'supplier_b', true, $2)", [
      co.companyId,
      JSON.stringify({ account_number: "1", api_key: "k", nested: { n: 1.5 } }),
    ]);
    const fields = { ...getTableColumns(supplierIntegrations), companyName: companies.name };
    const query = (companyId: number) =>
      db()
        .select(fields)
        .from(supplierIntegrations)
        .innerJoin(companies, eq(companies.id, supplierIntegrations.companyId))
        .where(eq(supplierIntegrations.companyId, companyId))
        .orderBy(asc(supplierIntegrations.provider));

    const rows = await viaJson(co.companyId, fields, query(co.companyId));
    expect(rows).toEqual(await query(co.companyId));
    expect(rows[0]).toMatchObject({ enabled: true, baseUrl: null, credentials: { account_number: "1", api_key: "k", nested: { n: 1.5 } } });

    const other = await newCompany();
    expect(await viaJson(other.companyId, fields, query(other.companyId))).toEqual([]);
  });
});
