/** Products: routes built on the first request under /products (src/resources.ts lists it). */
export const productsResource = {
  prefix: "/products",
  load: async () => (await import(".")).productsApi,
};
