/** Order statuses: routes built on the first request under /statuses (src/resources.ts lists it). */
export const statusesResource = {
  prefix: "/statuses",
  tags: [{ name: "Statuses", description: "The company's order statuses, in the order the shop works through them" }],
  load: async () => (await import(".")).statusesRoutes,
};
