import { OpenAPIHono } from "@hono/zod-openapi";
import type { Router as HonoRouter, Result } from "hono/router";
import { LinearRouter } from "hono/router/linear-router";
import type { AppEnv } from "./context";
import { validationHook } from "./errors";

/**
 * hono's LinearRouter, strict about a trailing slash as hono's default router is: `/clients/` matches
 * no `/clients` or `/clients/:id` route, only wildcard ones (`/api/v1/*`). LinearRouter adds a route
 * without building anything; the default (SmartRouter, then RegExpRouter) compiles every route of the
 * app into one expression on its first match, which a fresh isolate's first request paid
 * (docs/bundle.md#routes-built-per-resource-on-first-use). Matching a few dozen routes stays cheap.
 */
export class StrictLinearRouter<T> implements HonoRouter<T> {
  readonly name = "StrictLinearRouter";
  readonly #routes = new LinearRouter<T>();
  /** Handlers of routes whose path does not end in a wildcard: LinearRouter also matches them with a trailing slash. */
  readonly #exact = new Set<T>();

  add(method: string, path: string, handler: T): void {
    if (!path.endsWith("*")) this.#exact.add(handler);
    this.#routes.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const result = this.#routes.match(method, path);
    if (path.length < 2 || !path.endsWith("/")) return result;
    return [result[0].filter(([handler]) => !this.#exact.has(handler))] as Result<T>;
  }
}

/**
 * Every router is built here so all share the validation hook (400 with field details) and the router.
 * Apart from openapi.ts (which re-exports it for the routes), so that what the app needs at start-up
 * does not build the route helpers' shared schemas (pagination, idempotency): those load with the first resource.
 */
export const createRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook, router: new StrictLinearRouter() });
export type Router = ReturnType<typeof createRouter>;
