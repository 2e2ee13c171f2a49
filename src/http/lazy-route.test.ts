import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { notFound } from "./errors";
import { addLazyRoutes, eagerRouter, lazyRoute, type RegisterRoute } from "./lazy-route";
import { createRouter, type Router } from "./router";

/** A route's file as the tables import it: a GET of `path` answering its `id` parameter, or throwing 404 for id 0. */
const routeFile = (path: string): RegisterRoute => {
  return (api: Router) =>
    api.openapi(
      {
        method: "get",
        path,
        request: { params: z.object({ id: z.coerce.number().int() }) },
        responses: { 200: { description: "ok" } },
      },
      (c) => {
        const { id } = c.req.valid("param");
        if (id === 0) throw notFound("Thing");
        return c.json({ id }, 200);
      },
    );
};

describe("routes built on their first request (lazy-route.ts)", () => {
  it("imports a route's file on its first request only, runs its validators and handler, and answers its errors", async () => {
    const loads = { get: 0, other: 0 };
    const app = createRouter();
    app.use("*", async (c, next) => {
      c.set("requestId", "req-1");
      await next();
    });
    addLazyRoutes(app, "/things", [
      lazyRoute("get", "/things/{id}", async () => {
        loads.get++;
        return routeFile("/things/{id}");
      }),
      lazyRoute("get", "/things/{id}/other", async () => {
        loads.other++;
        return routeFile("/things/{id}/other");
      }),
    ]);
    expect(loads).toEqual({ get: 0, other: 0 });

    const first = await app.request("/things/7");
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ id: 7 });
    expect(await (await app.request("/things/8")).json()).toEqual({ id: 8 });
    expect(loads).toEqual({ get: 1, other: 0 });

    // The contract's validator: a 400 naming the parameter.
    const bad = await app.request("/things/x");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("id");
    // An error thrown by the handler is the routers' onError answer.
    const missing = await app.request("/things/0");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found", request_id: "req-1" } });
    expect(loads).toEqual({ get: 1, other: 0 });
  });

  it("refuses a table row that is not its file's contract, and a path outside the resource's prefix", async () => {
    await expect(eagerRouter([lazyRoute("get", "/things/{id}", async () => routeFile("/things/{key}"))])).rejects.toThrow(
      /GET \/things\/\{id\}: its file registers GET \/things\/:key/,
    );
    await expect(eagerRouter([lazyRoute("post", "/things/{id}", async () => routeFile("/things/{id}"))])).rejects.toThrow(
      /its file registers GET/,
    );
    expect(() => addLazyRoutes(createRouter(), "/things", [lazyRoute("get", "/other/{id}", async () => routeFile("/other/{id}"))])).toThrow(
      /outside its resource's prefix \/things/,
    );
    expect((await eagerRouter([lazyRoute("get", "/things/{id}", async () => routeFile("/things/{id}"))])).routes).toHaveLength(2);
  });
});
