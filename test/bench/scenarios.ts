/** What the latency benchmark times; each resource adds its typical requests here. */
export interface BenchScenario {
  name: string;
  prepare(load: (data: unknown) => Promise<Record<string, any>>): Promise<{ method?: string; path: string; body?: unknown }>;
}

export const benchScenarios: BenchScenario[] = [
  {
    name: "GET /clients (page of 25)",
    async prepare(load) {
      await load({ clients: Array.from({ length: 60 }, (_, i) => ({ ref: `bc${i}`, company_name: `Bench Client ${i}`, phone: `555-01${i}` })) });
      return { path: "/clients" };
    },
  },
  { name: "GET /clients?q=client 4", prepare: async () => ({ path: "/clients?q=client%204" }) },
  {
    name: "GET /clients/{id}",
    async prepare(load) {
      const ids = await load({ clients: [{ ref: "one", company_name: "One", email: "one@bench.example" }] });
      return { path: `/clients/${ids.one}` };
    },
  },
  { name: "POST /clients", prepare: async () => ({ method: "POST", path: "/clients", body: { company_name: "Created in bench" } }) },
];
