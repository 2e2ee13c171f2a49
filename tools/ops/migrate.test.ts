import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { projectRoot } from "./config";

/**
 * Migrations over data written before them: a scratch database of its own, migrated up to a tag, given
 * rows the way older code wrote them, then migrated to the end.
 */
const name = `crm_migrate_${process.pid}`;
const url = () => {
  const u = new URL(inject("databaseUrl"));
  u.pathname = `/${name}`;
  return u.toString();
};
const admin = () => new pg.Client({ connectionString: inject("databaseUrl") });

async function migrateTo(client: pg.Client, lastTag?: string) {
  const folder = mkdtempSync(path.join(tmpdir(), "crm-migrations-"));
  cpSync(path.join(projectRoot, "drizzle"), folder, { recursive: true });
  const journalFile = path.join(folder, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
  if (lastTag) journal.entries = journal.entries.slice(0, journal.entries.findIndex((e) => e.tag === lastTag) + 1);
  writeFileSync(journalFile, JSON.stringify(journal));
  await migrate(drizzle(client), { migrationsFolder: folder });
}

describe("migrations over existing rows", () => {
  let client: pg.Client;
  beforeAll(async () => {
    const a = admin();
    await a.connect();
    await a.query(`drop database if exists ${name}`);
    await a.query(`create database ${name}`);
    await a.end();
    client = new pg.Client({ connectionString: url() });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    const a = admin();
    await a.connect();
    await a.query(`drop database if exists ${name}`);
    await a.end();
  });

  it("statuses get dense positions and unique names; orders get their payment status and its counters", async () => {
    await migrateTo(client, "0010_webhooks");
    const q = async (text: string, params: unknown[] = []) => (await client.query(text, params)).rows;
    const [{ id: one }] = await q("insert into companies (name) values ('One') returning id");
    const [{ id: two }] = await q("insert into companies (name) values ('Two') returning id");
    // As the admin CLI and imports wrote them: positions with gaps and repeats, a name twice in other cases.
    for (const [company, statusName, position] of [
      [one, "Quote", 5],
      [one, "Printing", 2],
      [one, "printing", 2],
      [one, "Shipped", 40],
      [two, "Quote", 0],
      [two, "Done", 0],
    ] as const) {
      await q("insert into order_statuses (company_id, name, position) values ($1, $2, $3)", [company, statusName, position]);
    }
    const [{ id: clientId }] = await q("insert into clients (company_id, company_name) values ($1, 'C') returning id", [one]);
    const [{ id: taxId }] = await q("insert into taxes (company_id, name, rate) values ($1, 'T', 10) returning id", [one]);
    const order = async (lines: string[], paid: string[], deleted = false) => {
      const [{ id: projectId }] = await q(
        "insert into projects (company_id, client_id, title, deleted_at) values ($1, $2, 'O', $3) returning id",
        [one, clientId, deleted ? new Date() : null],
      );
      const [{ id: invoiceId }] = await q(
        "insert into invoices (company_id, project_id, client_id, tax_id) values ($1, $2, $3, $4) returning id",
        [one, projectId, clientId, taxId],
      );
      for (const price of lines)
        await q("insert into invoice_items (company_id, invoice_id, title, unit_price) values ($1, $2, 'L', $3)", [one, invoiceId, price]);
      for (const amount of paid)
        await q("insert into payments (company_id, invoice_id, amount) values ($1, $2, $3)", [one, invoiceId, amount]);
      return projectId as number;
    };
    const orders = {
      unpaid: await order(["100.00"], []),
      partial: await order(["100.00"], ["109.99"]),
      paid: await order(["100.00"], ["110.00"]),
      empty: await order([], []),
      deletedUnpaid: await order(["5.00"], [], true),
    };

    await migrateTo(client);

    expect(await q("select company_id, name, position from order_statuses order by company_id, position")).toEqual([
      { company_id: one, name: "Printing", position: 0 },
      { company_id: one, name: expect.stringMatching(/^printing \(\d+\)$/), position: 1 },
      { company_id: one, name: "Quote", position: 2 },
      { company_id: one, name: "Shipped", position: 3 },
      { company_id: two, name: "Quote", position: 0 },
      { company_id: two, name: "Done", position: 1 },
    ]);
    const statuses = await q("select id, payment_status from projects order by id");
    expect(Object.fromEntries(statuses.map((r) => [r.id, r.payment_status]))).toEqual({
      [orders.unpaid]: "unpaid",
      [orders.partial]: "partial",
      [orders.paid]: "paid",
      [orders.empty]: "paid",
      [orders.deletedUnpaid]: "unpaid",
    });
    const counts = await q(
      "select list, sum(n)::int as n from list_counts where company_id = $1 and list like 'orders%' group by list order by list",
      [one],
    );
    expect(counts).toEqual([
      { list: "orders", n: 4 },
      // Every row, tombstones included (0014_search_at_scale).
      { list: "orders/include_deleted=true", n: 5 },
      { list: "orders/payment_status=paid", n: 2 },
      { list: "orders/payment_status=partial", n: 1 },
      { list: "orders/payment_status=unpaid", n: 1 },
    ]);
  });
});
