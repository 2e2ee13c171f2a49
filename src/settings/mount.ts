import type { Context } from "hono";
import type { AppEnv } from "../http/context";
import type { Router } from "../http/router";

/**
 * Mounts the settings area on the app under `/settings`, imported on its first request (as the MCP
 * endpoint is): an isolate serving the API never loads its pages, JSX runtime or password hashing
 * (docs/bundle.md#routes-built-per-resource-on-first-use).
 */
export function mountSettings(app: Router): void {
  let loading: Promise<typeof import("./app")> | undefined;
  let serve: ((c: Context<AppEnv>) => Response | Promise<Response>) | undefined;
  const handler = async (c: Context<AppEnv>) => {
    if (!serve) {
      loading ??= import("./app");
      // A failed import is retried by the next request.
      loading.catch(() => (loading = undefined));
      serve = (await loading).serveSettings;
    }
    return serve(c);
  };
  app.all("/settings", handler);
  app.all("/settings/*", handler);
}

/** Mounts the proof approvals' public page (`/approve/{token}`, approval-page.tsx), imported on its first request. */
export function mountApprovalPage(app: Router): void {
  let loading: Promise<typeof import("./approval-page")> | undefined;
  const handler = async (c: Context<AppEnv>) => {
    loading ??= import("./approval-page");
    loading.catch(() => (loading = undefined));
    return (await loading).serveApprovalPage(c);
  };
  app.all("/approve/*", handler);
}
