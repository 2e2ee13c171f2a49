import type { Context } from "hono";
import { API_PREFIX } from "./api-prefix";
import type { AppEnv } from "./context";
import { onError } from "./errors";
import { createRouter, type Router } from "./router";

/**
 * A router built on the first request under its path prefix instead of when the Worker starts: the
 * MCP endpoint (`/mcp`), whose routes are not known before it loads. `load` is a dynamic `import()`, so
 * start-up does not build it (docs/bundle.md#routes-built-per-resource-on-first-use). The resources'
 * routes are known from their tables and built route by route instead (lazy-route.ts).
 */
export interface LazyResource {
  /** Every path of the router starts with this segment (`/mcp`); checked when it loads. */
  prefix: string;
  load: () => Promise<Router>;
}

/** The answer when no route of the resource matches: a 405 for a known path, a 404 otherwise. */
export type NoRoute = (c: Context<AppEnv>, routes: { method: string; path: string }[]) => Response | Promise<Response>;

/** The request's context in the API router, for the resource's router that serves the request. */
const outer = new WeakMap<Request, Context<AppEnv>>();

/** Calls `load` once; a failed load is retried by the next call. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    if (!loaded) {
      loaded = load();
      loaded.catch(() => (loaded = undefined));
    }
    return loaded;
  };
}

/**
 * Mounts `resource` on `api` (the router under API_PREFIX). The API's middleware (settings,
 * per-request services, CORS, the bearer check) runs first, as for any route; then the resource's
 * router gets the same request, with the same variables and the same onError (which turns an error
 * into its answer where it is thrown, so the middleware around it still adds its headers).
 */
export function mountLazy(api: Router, resource: LazyResource, noRoute: NoRoute): void {
  const routes = once(async () => {
    const loaded = await resource.load();
    for (const r of loaded.routes) {
      if (r.path !== resource.prefix && !r.path.startsWith(`${resource.prefix}/`))
        throw new Error(`route ${r.method} ${r.path} is outside its resource's prefix ${resource.prefix}`);
    }
    return loaded;
  });
  const serving = once(async () => {
    const router = createRouter();
    router.use("*", async (c, next) => {
      const parent = outer.get(c.req.raw)!;
      for (const [k, v] of Object.entries(parent.var)) c.set(k as keyof AppEnv["Variables"], v as never);
      try {
        await next();
      } finally {
        // The one variable the resource's middleware sets (the token's company) is the request's, for its log line.
        const auth = c.get("auth");
        if (auth) parent.set("auth", auth);
      }
    });
    router.route(API_PREFIX, await routes());
    router.notFound((c) => noRoute(c, router.routes));
    router.onError(onError);
    return router;
  });
  let ready: Router | undefined;
  const handler = async (c: Context<AppEnv>) => {
    // Loaded: no await on the loader's promise for every request.
    ready ??= await serving();
    const router = ready;
    outer.set(c.req.raw, c);
    let ctx: Context<AppEnv>["executionCtx"] | undefined;
    try {
      ctx = c.executionCtx;
    } catch {
      // Not in a Worker (the OpenAPI tool calls the app in Node): there is none.
    }
    return router.fetch(c.req.raw, c.env, ctx);
  };
  api.all(resource.prefix, handler);
  api.all(`${resource.prefix}/*`, handler);
}
