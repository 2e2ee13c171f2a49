import { it } from "vitest";
import { newCompany, workerLogLines, sql } from "../support/api";
it("debug", async () => {
  const a = await newCompany({ accountingSync: true });
  const cl = await a.post("/clients", { company_name: "A", tax_exempt: true });
  const r = await a.post("/orders", { title: "T", client_id: cl.body.client.id });
  const p = await a.patch(`/orders/${r.body.project.id}`, { title: "U", metadata: { x: "1" } });
  console.log(p.status, JSON.stringify(p.body));
  for (const l of workerLogLines().filter((l) => l.includes('"error"')).slice(-3)) console.log(l.slice(0, 3000));
});
