import { emailThreadEvents } from "./events";

/** Mail: routes built on the first request under /mail (src/resources.ts lists it). */
export const mailResource = {
  prefix: "/mail",
  load: async () => (await import(".")).mailApi,
  events: emailThreadEvents,
};
