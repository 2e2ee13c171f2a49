import { clientsRoutes } from ".";
import { clientEvents } from "./events";

/** Clients: routes each built on its first request (src/resources.ts lists it). */
export const clientsResource = {
  prefix: "/clients",
  tags: [{ name: "Clients", description: "The company's clients" }],
  routes: () => clientsRoutes,
  events: clientEvents,
};
