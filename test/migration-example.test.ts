import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { apiUrl, newCompany, sql } from "./support/api";

/**
 * The migration example of docs/migrating.md, run as written (Node, no packages) with the export shown
 * there, against the suite's Worker: twice, as the page says is safe.
 */
const root = path.resolve(import.meta.dirname, "..");
const docs = readFileSync(path.join(root, "docs/migrating.md"), "utf8");
const script = /<!-- migration-example[^>]*-->\n```js\n([\s\S]*?)```/.exec(docs)?.[1];
const exported = /<!-- migration-export[^>]*-->\n```json\n([\s\S]*?)```/.exec(docs)?.[1];
const dir = path.join(root, ".test-results", `migration-example-${process.pid}`);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/migrating.md example", () => {
  it("upserts the export's customers and whole orders; a second run updates them all and creates nothing", async () => {
    expect(script).toBeTruthy();
    expect(exported).toBeTruthy();
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "migrate.mjs"), script!);
    writeFileSync(path.join(dir, "export.json"), exported!);
    const co = await newCompany({ accountingSync: true });
    const run = async () => {
      const { stdout } = await promisify(execFile)(process.execPath, [path.join(dir, "migrate.mjs"), path.join(dir, "export.json")], {
        env: { ...process.env, CRM_API: apiUrl(), CRM_TOKEN: co.token },
        timeout: 60_000,
      });
      return JSON.parse(stdout.trim().split("\n").pop()!);
    };
    expect(await run()).toEqual({ created: 4, updated: 0, failed: [] });
    const rows = async () => ({
      clients: await sql("select external_id, company_name, metadata from clients where company_id = $1 order by external_id", [
        co.companyId,
      ]),
      orders: await sql("select external_id, title from projects where company_id = $1 and deleted_at is null order by external_id", [
        co.companyId,
      ]),
      lines: await sql<{ n: number }>("select count(*)::int n from invoice_items where company_id = $1 and deleted_at is null", [
        co.companyId,
      ]),
    });
    const first = await rows();
    expect(first.clients).toEqual([
      { external_id: "cus_1", company_name: "Riverbend Athletics", metadata: { source: "oldshop" } },
      { external_id: "cus_2", company_name: "Lakeside Run Club", metadata: { source: "oldshop" } },
    ]);
    expect(first.orders.map((o) => o.external_id)).toEqual(["1001", "1002"]);
    expect(first.lines[0].n).toBe(3);
    const [order] = (await co.get("/orders?external_id=1001")).body.data;
    expect(order).toMatchObject({ total: "350.00", amount_paid: "175.00", balance_due: "175.00" });
    // History: no accounting rows, as the script asks.
    expect(await sql("select 1 from accounting_outbox where company_id = $1", [co.companyId])).toEqual([]);
    expect(await run()).toEqual({ created: 0, updated: 4, failed: [] });
    expect(await rows()).toEqual(first);
  });
});
