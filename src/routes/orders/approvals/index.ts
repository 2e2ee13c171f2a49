import { lazyRoute, type RouteEntry } from "../../../http/lazy-route";

/** The routes under `/approvals` (an order's own, `/orders/{id}/approvals`, are in the orders' table). */
export const approvalsRoutes: readonly RouteEntry[] = [
  lazyRoute("get", "/approvals/{id}", async () => (await import("./get")).registerGetApproval),
  lazyRoute("post", "/approvals/{id}/revoke", async () => (await import("./revoke")).registerRevokeApproval),
];
