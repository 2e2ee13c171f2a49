import { emailThreadEvents } from "./events";

/** Mail: routes built on the first request under /mail (src/resources.ts lists it). */
export const mailResource = {
  prefix: "/mail",
  tags: [{ name: "Mail", description: "Mail add-on data: cached thread context and stored email threads" }],
  load: async () => (await import(".")).mailRoutes,
  events: emailThreadEvents,
};
