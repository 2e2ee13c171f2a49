import { statusesRoutes } from ".";
/** Order statuses: routes each built on its first request (src/resources.ts lists it). */
export const statusesResource = {
  prefix: "/statuses",
  tags: [{ name: "Statuses", description: "The company's order statuses, in the order the shop works through them" }],
  routes: () => statusesRoutes,
};
