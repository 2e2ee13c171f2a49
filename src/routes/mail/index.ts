import { lazyRoute, type RouteEntry } from "../../http/lazy-route";

/** The routes, in the router's order; each file is imported on its route's first request (http/lazy-route.ts). */
export const mailRoutes: readonly RouteEntry[] = [
  lazyRoute("get", "/mail/threads/{legacyThreadId}", async () => (await import("./get-thread-context")).registerGetThreadContext),
  lazyRoute("put", "/mail/email-threads/{legacyThreadId}", async () => (await import("./put-email-thread")).registerPutEmailThread),
  lazyRoute("get", "/mail/email-threads/{legacyThreadId}", async () => (await import("./get-email-thread")).registerGetEmailThread),
];
