import { productsRoutes } from ".";
/** Products: routes each built on its first request (src/resources.ts lists it). */
export const productsResource = {
  prefix: "/products",
  tags: [{ name: "Products", description: "Product lookup across the catalog, the suppliers and invoice lines" }],
  routes: () => productsRoutes,
};
