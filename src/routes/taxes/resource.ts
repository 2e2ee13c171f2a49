import { taxesRoutes } from ".";

/**
 * Taxes: routes each built on its first request (src/resources.ts lists it), with the catalog of
 * every resource's event types (a rate change writes its orders' events).
 */
export const taxesResource = {
  prefix: "/taxes",
  tags: [{ name: "Taxes", description: "The company's tax rates, which its orders' invoices name" }],
  routes: taxesRoutes,
};
