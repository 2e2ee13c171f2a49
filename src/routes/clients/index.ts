import { lazyRoute, type RouteEntry } from "../../http/lazy-route";

/** The routes, in the router's order; each file is imported on its route's first request (http/lazy-route.ts). */
export const clientsRoutes: readonly RouteEntry[] = [
  lazyRoute("get", "/clients", async () => (await import("./list")).registerListClients),
  lazyRoute("post", "/clients", async () => (await import("./post")).registerCreateClient),
  lazyRoute("post", "/clients/batch", async () => (await import("./batch")).registerBatchClients),
  lazyRoute("get", "/clients/{id}", async () => (await import("./get")).registerGetClient),
  lazyRoute("patch", "/clients/{id}", async () => (await import("./patch")).registerPatchClient),
  lazyRoute("put", "/clients/by-external-id/{external_id}", async () => (await import("./upsert")).registerUpsertClient),
];
