/**
 * What the latency benchmark times. The company is loaded with the demo seed first (realistic
 * clients, orders with items and payments, catalog, a mail-thread context); `ids` maps its refs.
 */
export interface BenchContext {
  ids: Record<string, any>;
  load(data: unknown): Promise<Record<string, any>>;
}
export interface BenchScenario {
  name: string;
  prepare(ctx: BenchContext): Promise<{ method?: string; path: string; body?: unknown }>;
}

const thread = (n: number) => ({
  account_email: "orders@shop.example",
  subject: "Re: spring restock",
  messages: Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    internal_date: new Date(Date.UTC(2026, 2, 1, 9, i)).toISOString(),
    from: "Maya Lopez <maya@northside.example>",
    to: ["orders@shop.example"],
    snippet: "Can we add four more XL?",
    body_plain: "Hi! Can we add four more XL to the order? Thanks, Maya",
    body_html: `<p>Hi! Can we add four more XL to the order?</p><p>Thanks, Maya</p>${"<br>".repeat(50)}`,
  })),
});

export const benchScenarios: BenchScenario[] = [
  {
    name: "GET /clients (page of 25)",
    async prepare({ load }) {
      await load({ clients: Array.from({ length: 60 }, (_, i) => ({ ref: `bc${i}`, company_name: `Bench Client ${i}`, phone: `555-01${i}` })) });
      return { path: "/clients" };
    },
  },
  { name: "GET /clients?q=client 4", prepare: async () => ({ path: "/clients?q=client%204" }) },
  { name: "GET /clients/{id}", prepare: async ({ ids }) => ({ path: `/clients/${ids.northside}` }) },
  { name: "POST /clients", prepare: async () => ({ method: "POST", path: "/clients", body: { company_name: "Created in bench" } }) },
  { name: "GET /orders (list with totals)", prepare: async () => ({ path: "/orders" }) },
  { name: "GET /orders/{id} (full order)", prepare: async ({ ids }) => ({ path: `/orders/${ids["ord-northside-tees"]}` }) },
  {
    name: "POST /orders (project + invoice)",
    prepare: async ({ ids }) => ({ method: "POST", path: "/orders", body: { title: "Bench order", client_id: ids.northside } }),
  },
  {
    name: "PATCH /orders/{id} (project + invoice)",
    prepare: async ({ ids }) => ({
      method: "PATCH",
      path: `/orders/${ids["ord-northside-tees"]}`,
      body: { description: "Updated in bench", deadline: "2026-03-21", discount_amount: "5", discount_amount_type: "percentage" },
    }),
  },
  { name: "GET /products/search (local + lines)", prepare: async () => ({ path: "/products/search?q=tee&include=local,lines" }) },
  { name: "GET /mail/threads/{id} (context)", prepare: async () => ({ path: "/mail/threads/demo-18c2f1a9b7e4d305" }) },
  { name: "PUT /mail/email-threads/{id} (50 msgs)", prepare: async () => ({ method: "PUT", path: "/mail/email-threads/bench-thread-1", body: thread(50) }) },
];
