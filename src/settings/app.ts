import type { Context } from "hono";
import { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { accountRoutes } from "./account";
import { auditLogRoutes } from "./audit-log";
import { connectedAppsRoutes, consentRoutes } from "./connected-apps";
import type { SettingsEnv } from "./context";
import { errorPage, notFoundPage } from "./errors";
import { securityHeaders } from "./guards";
import { logSettingsAction, requestLogsRoutes } from "./request-logs";
import { requireUser } from "./session";
import { setupRoutes } from "./setup";
import { signInRoutes, signOutRoutes } from "./sign-in";
import { tokensRoutes } from "./tokens";
import { usersRoutes } from "./users";
import { webhooksRoutes } from "./webhooks";

/**
 * The developers' settings area (docs/settings.md), under `/settings`: server-rendered pages whose forms
 * work without JavaScript. Loaded on its first request (mount.ts), never on the API's cold path.
 * The app's middleware (request id, settings, per-request services) ran before it: its variables are
 * the outer request's. Signed-out pages first; everything after `requireUser` needs a session.
 */
export const settingsApp = new Hono<SettingsEnv>().basePath("/settings");

/** The outer (API app's) context of each request, whose variables the settings app takes over. */
const outer = new WeakMap<Request, Context<AppEnv>>();

settingsApp.use("*", async (c, next) => {
  const parent = outer.get(c.req.raw);
  if (parent) for (const [k, v] of Object.entries(parent.var)) c.set(k as keyof SettingsEnv["Variables"], v as never);
  await next();
});
settingsApp.use("*", securityHeaders);

settingsApp.route("/sign-in", signInRoutes);
settingsApp.route("/setup", setupRoutes);

// Everything below needs a signed-in user.
settingsApp.use("*", requireUser);
// Each signed-in action's request log entry (docs/request-logs.md).
settingsApp.use("*", logSettingsAction);
settingsApp.route("/sign-out", signOutRoutes);
settingsApp.route("/account", accountRoutes);
settingsApp.route("/users", usersRoutes);
settingsApp.route("/tokens", tokensRoutes);
settingsApp.route("/webhooks", webhooksRoutes);
settingsApp.route("/audit-log", auditLogRoutes);
settingsApp.route("/connected-apps", connectedAppsRoutes);
settingsApp.route("/oauth/consent", consentRoutes);
settingsApp.route("/request-logs", requestLogsRoutes);
// The area's home. The Tokens page (`.route("/tokens", …)`) is added beside these.
settingsApp.get("/", (c) => c.redirect("/settings/tokens", 303));

settingsApp.notFound((c) => notFoundPage(c));
settingsApp.onError((err, c) => {
  c.get("logger")?.error("settings page failed", { error: err });
  return errorPage(c, 500, "Something went wrong", "The page could not be shown. Try again in a moment.");
});

/** Serves a request that the API app routed to `/settings…` (mount.ts), with its variables. */
export function serveSettings(c: Context<AppEnv>): Response | Promise<Response> {
  outer.set(c.req.raw, c);
  let ctx: Context["executionCtx"] | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    // Not in a Worker: none.
  }
  return settingsApp.fetch(c.req.raw, c.env, ctx);
}
