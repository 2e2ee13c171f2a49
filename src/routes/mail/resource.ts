import { mailRoutes } from ".";
import { emailThreadEvents } from "./events";

/** Mail: routes each built on its first request (src/resources.ts lists it). */
export const mailResource = {
  prefix: "/mail",
  tags: [{ name: "Mail", description: "Mail add-on data: cached thread context and stored email threads" }],
  routes: () => mailRoutes,
  events: emailThreadEvents,
};
