import { requestLogsRoutes } from ".";

/** The request log (docs/request-logs.md): routes each built on its first request (src/resources.ts lists it). */
export const requestLogsResource = {
  prefix: "/request-logs",
  tags: [{ name: "Request logs", description: "Your token's requests of the last 30 days: from an answer's request id to its entry" }],
  routes: requestLogsRoutes,
};
