import { it } from "vitest";
import { newCompany, workerLogLines } from "../support/api";
it("debug", async () => {
  const a = await newCompany();
  const r = await a.put("/clients/by-external-id/x1", { company_name: "A" });
  console.log(r.status, JSON.stringify(r.body));
  const b = await a.post("/clients/batch", { items: [{ method: "create", data: { company_name: "B1" } }, { method: "upsert", external_id: "x1", data: { company_name: "A2" } }, { method: "update", id: 1, data: { company_name: "zz" } }, { method: "nope" }] });
  console.log(b.status, JSON.stringify(b.body, null, 1));
  for (const l of workerLogLines().filter((l) => l.includes('"error"')).slice(-5)) console.log(l.slice(0, 3000));
});
