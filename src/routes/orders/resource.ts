import { orderEvents } from "./events";

/** Orders and their contents: routes built on the first request under /orders (src/resources.ts lists it). */
export const ordersResource = {
  prefix: "/orders",
  tags: [
    { name: "Orders", description: "Orders: a project with its default invoice" },
    { name: "Order contents", description: "An order's line items, payments and artworks" },
  ],
  load: async () => (await import(".")).ordersRoutes,
  events: orderEvents,
};
