import { it } from "vitest";
import { newCompany, workerLogLines, sql } from "../support/api";
it("debug", async () => {
  const a = await newCompany({ accountingSync: true });
  const cl = await a.post("/clients", { company_name: "A", tax_exempt: true });
  const r = await a.post("/orders", { title: "T", client_id: cl.body.client.id, external_id: "o1", metadata: { a: "b" },
    items: [{ title: "Tee", unit_price: "12.50", sizes: { s: 2, M: 3 } }, { title: "Setup", quantity: 2, unit_price: 25 }],
    payments: [{ amount: "10.00", paid_date: "2026-01-02", method: "card" }],
    artworks: [{ status: "approved", placements: ["front"] }, {}] });
  console.log(r.status, JSON.stringify(r.body));
  const g = await a.get(`/orders/${r.body.project?.id}`);
  console.log(JSON.stringify(g.body).slice(0, 3000));
  console.log(JSON.stringify(await sql("select type, resource_id, payload is not null as p from webhook_events where company_id=$1", [a.companyId])));
  console.log(JSON.stringify(await sql("select operation from accounting_outbox where company_id=$1", [a.companyId])));
  for (const l of workerLogLines().filter((l) => l.includes('"error"')).slice(-5)) console.log(l.slice(0, 3000));
});
