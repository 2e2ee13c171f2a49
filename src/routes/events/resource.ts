import { eventsRoutes } from ".";

/**
 * The events feed: routes each built on its first request (src/resources.ts lists it), with the
 * catalog of every resource's event types (their payload schemas and renderers).
 */
export const eventsResource = {
  prefix: "/events",
  tags: [
    {
      name: "Events",
      description: "The company's change events of the last 90 days, as webhooks carry them, whether or not an endpoint subscribes",
    },
  ],
  routes: eventsRoutes,
};
