import { clientEvents } from "./events";

/** Clients: routes built on the first request under /clients (src/resources.ts lists it). */
export const clientsResource = {
  prefix: "/clients",
  tags: [{ name: "Clients", description: "The company's clients" }],
  load: async () => (await import(".")).clientsRoutes,
  events: clientEvents,
};
