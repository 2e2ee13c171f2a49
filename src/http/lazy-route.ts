import type { Context, MiddlewareHandler, Next } from "hono";
import type { AppEnv } from "./context";
import { onError } from "./errors";
import { createRouter, type Router } from "./router";

/**
 * A resource's routes, each built on its own first request (docs/bundle.md#routes-built-per-resource-on-first-use):
 * a resource lists its routes as a table of method, path and a dynamic `import()` of the route's file,
 * so the first request to one route builds that route's contract and schemas, not its siblings'.
 */

type Method = "get" | "post" | "put" | "patch" | "delete";
/** What a route's file exports: registers its contract and handler on a router (`api.openapi(route, handler)`). */
export type RegisterRoute = (api: Router) => unknown;

export interface RouteEntry {
  /** The method and path its contract declares (checked when it loads). */
  method: Method;
  path: string;
  load: () => Promise<RegisterRoute>;
}

/** One row of a resource's route table. */
export const lazyRoute = (method: Method, path: string, load: () => Promise<RegisterRoute>): RouteEntry => ({ method, path, load });

/** A contract's path as the router writes it (`/clients/{id}` → `/clients/:id`), as @hono/zod-openapi does. */
const routerPath = (path: string) => path.replaceAll(/\/\{([^{}]+)\}/g, "/:$1");

/**
 * Every route of the table registered at once, in the table's order: what the OpenAPI document is
 * built from (at build time), so the document is the routes' own.
 */
export async function eagerRouter(entries: readonly RouteEntry[]): Promise<Router> {
  const api = createRouter();
  for (const entry of entries) {
    const register = await entry.load();
    handlersOf(entry, register); // the table's method and path are the contract's
    register(api);
  }
  return api;
}

/**
 * In the Worker: the table's routes added to `api` in the table's order, routed as declared, each
 * importing its file on its first request. Its handlers (the contract's middleware, the validators,
 * the handler) then run on the request as the router would have run them. Every path must start with
 * `prefix`, the resource's.
 */
export function addLazyRoutes(api: Router, prefix: string, entries: readonly RouteEntry[]): void {
  for (const entry of entries) {
    if (entry.path !== prefix && !entry.path.startsWith(`${prefix}/`))
      throw new Error(`route ${entry.method.toUpperCase()} ${entry.path} is outside its resource's prefix ${prefix}`);
    let handlers: MiddlewareHandler<AppEnv>[] | undefined;
    let loading: Promise<MiddlewareHandler<AppEnv>[]> | undefined;
    const load = () => {
      loading ??= entry.load().then((register) => (handlers = handlersOf(entry, register)));
      // A failed import is retried by the next request.
      loading.catch(() => (loading = undefined));
      return loading;
    };
    api.on(entry.method.toUpperCase(), routerPath(entry.path), async (c: Context<AppEnv>, next: Next) => {
      const chain = handlers ?? (await load());
      await run(c, chain, 0, next);
      return c.finalized ? c.res : undefined;
    });
  }
}

/** The handlers `register` adds, checked to be one route at the entry's method and path. */
function handlersOf(entry: RouteEntry, register: RegisterRoute): MiddlewareHandler<AppEnv>[] {
  const one = createRouter();
  register(one);
  const method = entry.method.toUpperCase();
  const path = routerPath(entry.path);
  if (!one.routes.length || one.routes.some((r) => r.method !== method || r.path !== path))
    throw new Error(
      `${method} ${entry.path}: its file registers ${one.routes.map((r) => `${r.method} ${r.path}`).join(", ") || "nothing"}`,
    );
  return one.routes.map((r) => r.handler as MiddlewareHandler<AppEnv>);
}

/**
 * Runs handlers[i..] as hono's compose does (an error becomes its answer where it is thrown, through
 * the routers' onError; a returned Response is the answer unless one is final), except that it leaves
 * the request's route index alone: the route's parameters are those of the entry the router matched.
 */
async function run(c: Context<AppEnv>, handlers: MiddlewareHandler<AppEnv>[], i: number, next: Next): Promise<void> {
  let res: unknown;
  let isError = false;
  try {
    res = await handlers[i](c, i + 1 < handlers.length ? () => run(c, handlers, i + 1, next) : next);
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    c.error = err;
    res = await onError(err, c);
    isError = true;
  }
  if (res instanceof Response && (!c.finalized || isError)) c.res = res;
}
