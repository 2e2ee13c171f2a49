import { orderEvents } from "./events";

/** Orders and their contents: routes built on the first request under /orders (src/resources.ts lists it). */
export const ordersResource = {
  prefix: "/orders",
  load: async () => (await import(".")).ordersApi,
  events: orderEvents,
};
