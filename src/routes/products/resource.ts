/** Products: routes built on the first request under /products (src/resources.ts lists it). */
export const productsResource = {
  prefix: "/products",
  tags: [{ name: "Products", description: "Product lookup across the catalog, the suppliers and invoice lines" }],
  load: async () => (await import(".")).productsRoutes,
};
