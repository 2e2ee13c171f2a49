import { lazyRoute, type RouteEntry } from "../../http/lazy-route";

/** The routes, in the router's order; each file is imported on its route's first request (http/lazy-route.ts). */
export const ordersRoutes: readonly RouteEntry[] = [
  lazyRoute("get", "/orders", async () => (await import("./list")).registerListOrders),
  lazyRoute("post", "/orders", async () => (await import("./post")).registerCreateOrder),
  lazyRoute("post", "/orders/batch", async () => (await import("./batch")).registerBatchOrders),
  lazyRoute("get", "/orders/{id}", async () => (await import("./get")).registerGetOrder),
  lazyRoute("patch", "/orders/{id}", async () => (await import("./patch")).registerPatchOrder),
  lazyRoute("delete", "/orders/{id}", async () => (await import("./delete")).registerDeleteOrder),
  lazyRoute("put", "/orders/by-external-id/{external_id}", async () => (await import("./upsert")).registerUpsertOrder),
  lazyRoute("post", "/orders/{id}/items", async () => (await import("./items/post")).registerCreateItem),
  lazyRoute("patch", "/orders/{id}/items/{item_id}", async () => (await import("./items/patch")).registerPatchItem),
  lazyRoute("delete", "/orders/{id}/items/{item_id}", async () => (await import("./items/delete")).registerDeleteItem),
  // The reorder first: the document lists it first, and the every-operation checks run a fixture's writes in that order.
  lazyRoute(
    "post",
    "/orders/{id}/items/{item_id}/decorations/reorder",
    async () => (await import("./decorations/reorder")).registerReorderDecorations,
  ),
  lazyRoute("post", "/orders/{id}/items/{item_id}/decorations", async () => (await import("./decorations/post")).registerCreateDecoration),
  lazyRoute(
    "patch",
    "/orders/{id}/items/{item_id}/decorations/{decoration_id}",
    async () => (await import("./decorations/patch")).registerPatchDecoration,
  ),
  lazyRoute(
    "delete",
    "/orders/{id}/items/{item_id}/decorations/{decoration_id}",
    async () => (await import("./decorations/delete")).registerDeleteDecoration,
  ),
  lazyRoute("post", "/orders/{id}/payments", async () => (await import("./payments/post")).registerCreatePayment),
  lazyRoute("patch", "/orders/{id}/payments/{payment_id}", async () => (await import("./payments/patch")).registerPatchPayment),
  lazyRoute("delete", "/orders/{id}/payments/{payment_id}", async () => (await import("./payments/delete")).registerDeletePayment),
  lazyRoute("post", "/orders/{id}/artworks", async () => (await import("./artworks/post")).registerCreateArtwork),
  lazyRoute("patch", "/orders/{id}/artworks/{artwork_id}", async () => (await import("./artworks/patch")).registerPatchArtwork),
  lazyRoute("delete", "/orders/{id}/artworks/{artwork_id}", async () => (await import("./artworks/delete")).registerDeleteArtwork),
  lazyRoute("post", "/orders/{id}/approvals", async () => (await import("./approvals/post")).registerCreateApproval),
  lazyRoute("get", "/orders/{id}/approvals", async () => (await import("./approvals/list")).registerListApprovals),
];
