import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { StrictLinearRouter } from "./router";

/** The same app on hono's default router and on ours: routes, wildcard middleware and a mounted router. */
function app(router?: StrictLinearRouter<never>) {
  const root = router ? new Hono({ router }) : new Hono();
  const api = router ? new Hono({ router: new StrictLinearRouter<never>() }) : new Hono();
  const seen: string[] = [];
  root.use("*", async (c, next) => {
    seen.push("root");
    await next();
  });
  api.use("*", async (c, next) => {
    seen.push("api");
    await next();
  });
  api.get("/clients", (c) => c.text("list"));
  api.post("/clients", (c) => c.text("create"));
  api.get("/clients/:id", (c) => c.text(`get ${c.req.param("id")}`));
  api.get("/clients/:id/orders", (c) => c.text(`orders of ${c.req.param("id")}`));
  api.all("/mcp/*", (c) => c.text(`mcp ${c.req.path}`));
  root.route("/api/v1", api);
  root.notFound((c) => c.text(`no route ${c.req.path}`, 404));
  return { root, seen };
}

const paths = [
  "/api/v1/clients",
  "/api/v1/clients/",
  "/api/v1/clients/5",
  "/api/v1/clients/5/",
  "/api/v1/clients//5",
  "/api/v1/clients/5/orders",
  "/api/v1/clients/5/orders/",
  "/api/v1/mcp",
  "/api/v1/mcp/",
  "/api/v1/mcp/x/",
  "/api/v1/",
  "/api/v1",
  "/",
  "/elsewhere/",
];

describe("StrictLinearRouter", () => {
  it("answers every method and path as hono's default router does, a trailing slash included", async () => {
    for (const method of ["GET", "POST", "DELETE"])
      for (const path of paths) {
        const expected = app();
        const ours = app(new StrictLinearRouter());
        const [a, b] = [await expected.root.request(path, { method }), await ours.root.request(path, { method })];
        expect({ method, path, status: b.status, body: await b.text(), middleware: ours.seen }).toEqual({
          method,
          path,
          status: a.status,
          body: await a.text(),
          middleware: expected.seen,
        });
      }
  });
});
