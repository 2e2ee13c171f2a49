import { it } from "vitest";
import { newCompany, workerLogLines, sql } from "../support/api";
it("debug", async () => {
  const a = await newCompany({ accountingSync: true });
  const cl = await a.post("/clients", { company_name: "A", tax_exempt: true });
  await a.post("/orders", { title: "T", client_id: cl.body.client.id });
  const l = await a.get("/events?per_page=1");
  console.log(l.status, JSON.stringify(l.body));
  const l2 = await a.get(`/events?per_page=1&cursor=${l.body.pagination?.next_cursor}`);
  console.log(l2.status, JSON.stringify(l2.body));
  const l3 = await a.get(`/events?type=client.created,order.created&type=client.updated`);
  console.log(l3.status, JSON.stringify(l3.body).slice(0, 300));
  const g = await a.get(`/events/${l.body.data?.[0]?.id}`);
  console.log(g.status, JSON.stringify(g.body).slice(0, 300));
  for (const l of workerLogLines().filter((l) => l.includes('"error"')).slice(-3)) console.log(l.slice(0, 3000));
});
