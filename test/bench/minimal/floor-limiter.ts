import type { Bindings } from "../../../src/platform/env";
import { createLogger } from "../../../src/platform/logger";
import { createLimiter } from "../../../src/ratelimit";
import type { MinimalEnv } from "./driver";
import floor from "./floor";

/**
 * The cold path's floor with one rate-limit call (`npm run bench:cpu`): floor.ts's request, and beside
 * its query, as the API overlaps them, one call of the API's own limiter (src/ratelimit: its Upstash
 * module, @upstash/ratelimit and @upstash/redis, imported on the first call) for a key no isolate has
 * seen. The call's deferred work (`waitUntil`) is counted with the request.
 */
export default {
  async fetch(request: Request, env: Bindings & MinimalEnv, ctx: ExecutionContext) {
    const logger = createLogger({});
    const limiting = createLimiter(env).limit(`bench-floor:${crypto.randomUUID()}`, (p) => ctx.waitUntil(p), logger);
    const res = await floor.fetch(request, env, ctx);
    const limit = await limiting;
    if (!limit.allowed || limit.failedOpen) return Response.json({ error: "the limiter did not answer", limit }, { status: 503 });
    return res;
  },
};
