import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { LINEAR_MATCHES, LinearThenTrieRouter } from "./router";

/** The same app on hono's default router and on ours: routes, wildcard middleware and a mounted router. */
function app(linearMatches?: number) {
  const root = linearMatches === undefined ? new Hono() : new Hono({ router: new LinearThenTrieRouter(linearMatches) });
  const api = linearMatches === undefined ? new Hono() : new Hono({ router: new LinearThenTrieRouter(linearMatches) });
  const seen: string[] = [];
  root.use("*", async (_c, next) => {
    seen.push("root");
    await next();
  });
  api.use("*", async (_c, next) => {
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

describe("LinearThenTrieRouter", () => {
  it.each([
    ["LinearRouter (before the trie)", Number.POSITIVE_INFINITY],
    ["TrieRouter (from the first match)", 0],
  ])("answers every method and path as hono's default router does, a trailing slash included: %s", async (_, linearMatches) => {
    for (const method of ["GET", "POST", "DELETE"])
      for (const path of paths) {
        const expected = app();
        const ours = app(linearMatches);
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

  it(`moves to the trie after ${LINEAR_MATCHES} matches, answering the same before and after`, async () => {
    const router = new LinearThenTrieRouter<string>();
    router.add("GET", "/clients", "list");
    router.add("GET", "/clients/:id", "get");
    router.add("ALL", "/api/*", "all");
    const answers = new Set<string>();
    const active = new Set<string>();
    for (let i = 0; i < LINEAR_MATCHES; i++) {
      active.add(router.activeRouter.name);
      answers.add(JSON.stringify([router.match("GET", "/clients/7"), router.match("GET", "/clients/"), router.match("GET", "/api/x/")]));
    }
    active.add(router.activeRouter.name);
    expect([...active]).toEqual(["LinearRouter", "TrieRouter"]);
    expect([...answers].map((a) => JSON.parse(a))).toEqual([[[[["get", { id: "7" }]]], [[]], [[["all", {}]]]]]);
  });
});
