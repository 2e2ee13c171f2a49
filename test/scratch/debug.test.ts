import { it } from "vitest";
import { newCompany, workerLogLines, sql } from "../support/api";
it("debug", async () => {
  const a = await newCompany({ accountingSync: true });
  const cl = await a.post("/clients", { company_name: "A", tax_exempt: true });
  const body = { title: "T", client_id: cl.body.client.id, items: [{ title: "x", unit_price: 1, quantity: 3 }] };
  const rs = await Promise.all(Array.from({ length: 10 }, () => a.put(`/orders/by-external-id/o-1`, body)));
  console.log(rs.map((r) => r.status), rs.map((r) => r.body.project?.id ?? JSON.stringify(r.body)));
  const p = await a.put(`/orders/by-external-id/o-1`, { ...body, title: "U", items: [{ title: "y", unit_price: 2 }], metadata: { q: "1" } });
  console.log(p.status, p.headers.get("etag"), JSON.stringify(p.body));
  console.log(JSON.stringify(await sql("select title, position, deleted_at is null live from invoice_items where company_id=$1 order by id", [a.companyId])));
  console.log(JSON.stringify(await sql("select operation, payload from accounting_outbox where company_id=$1", [a.companyId])));
  console.log(JSON.stringify(await sql("select type from webhook_events where company_id=$1", [a.companyId])));
  for (const l of workerLogLines().filter((l) => l.includes('"error"')).slice(-3)) console.log(l.slice(0, 3000));
});
