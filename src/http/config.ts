import { createMiddleware } from "hono/factory";
import { ConfigError, workerConfig } from "../platform/config";
import type { AppEnv } from "./context";
import { errorBody } from "./errors";

/**
 * Parses the settings (once per isolate) before anything uses them. A missing or wrong setting is
 * the operator's to fix: callers get a plain 500, the log gets one line naming the setting.
 */
export const loadConfig = createMiddleware<AppEnv>(async (c, next) => {
  try {
    c.set("config", workerConfig(c.env));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return c.json(errorBody(c.get("requestId"), "internal_error", "The service is misconfigured; try again later"), 500);
  }
  await next();
});
