import { createRouter } from "../../http/openapi";
import { registerLive } from "./live";
import { registerReady } from "./ready";

export const healthApi = createRouter();
registerLive(healthApi);
registerReady(healthApi);

/** Public: no token, so no rate limit either (the limiter is keyed by token). */
export const healthPaths = ["/health", "/health/ready"];
