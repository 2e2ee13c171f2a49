import { OpenAPIHono } from "@hono/zod-openapi";
import type { Router as HonoRouter, Result } from "hono/router";
import { LinearRouter } from "hono/router/linear-router";
import { TrieRouter } from "hono/router/trie-router";
import type { AppEnv } from "./context";
import { validationHook } from "./errors";

/** Matches an isolate answers with LinearRouter before it builds the trie. */
export const LINEAR_MATCHES = 64;

/**
 * hono's LinearRouter for an isolate's first requests, then its TrieRouter. hono's default router
 * (SmartRouter) tries RegExpRouter on the first match, which cannot take this app's paths, and falls
 * back to TrieRouter: a fresh isolate's first request paid both builds. LinearRouter builds nothing but
 * matches in time proportional to the routes (about 10 µs a request here), so after LINEAR_MATCHES
 * matches the routes go into a TrieRouter (under 1 µs), as the default would have ended.
 * docs/bundle.md#routes-built-per-resource-on-first-use has the measurements.
 *
 * LinearRouter also matches `/clients/` to `/clients`; this one answers a trailing slash as the
 * default router does: only wildcard routes (`/api/v1/*`) match it.
 */
export class LinearThenTrieRouter<T> implements HonoRouter<T> {
  readonly name = "LinearThenTrieRouter";
  readonly #routes: [method: string, path: string, handler: T][] = [];
  readonly #linear = new LinearRouter<T>();
  /** Handlers of routes whose path does not end in a wildcard, which LinearRouter also matches with a trailing slash. */
  readonly #exact = new Set<T>();
  #trie: TrieRouter<T> | undefined;
  #matches = 0;

  constructor(readonly linearMatches = LINEAR_MATCHES) {}

  /** The router that answers now (as SmartRouter's `activeRouter`). */
  get activeRouter(): HonoRouter<T> {
    return this.#trie ?? this.#linear;
  }

  add(method: string, path: string, handler: T): void {
    this.#routes.push([method, path, handler]);
    if (this.#trie) {
      this.#trie.add(method, path, handler);
      return;
    }
    if (!path.endsWith("*")) this.#exact.add(handler);
    this.#linear.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    if (!this.#trie && this.#matches++ >= this.linearMatches) {
      this.#trie = new TrieRouter<T>();
      for (const [m, p, h] of this.#routes) this.#trie.add(m, p, h);
    }
    if (this.#trie) return this.#trie.match(method, path);
    const result = this.#linear.match(method, path);
    if (path.length < 2 || !path.endsWith("/")) return result;
    return [result[0].filter(([handler]) => !this.#exact.has(handler))] as Result<T>;
  }
}

/**
 * Every router is built here so all share the validation hook (400 with field details) and the router.
 * Apart from openapi.ts (which re-exports it for the routes), so that what the app needs at start-up
 * does not build the route helpers' shared schemas (pagination, idempotency): those load with the first resource.
 */
export const createRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook, router: new LinearThenTrieRouter() });
export type Router = ReturnType<typeof createRouter>;
