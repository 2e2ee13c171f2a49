import { ordersRoutes } from ".";
import { orderEvents } from "./events";

/** Orders and their contents: routes each built on its first request (src/resources.ts lists it). */
export const ordersResource = {
  prefix: "/orders",
  tags: [
    { name: "Orders", description: "Orders: a project with its default invoice" },
    { name: "Order contents", description: "An order's line items, payments and artworks" },
  ],
  routes: () => ordersRoutes,
  events: orderEvents,
};
