import { healthApi } from ".";

/**
 * Health: two small routes built at start-up, so a load balancer's first probe does not wait for them;
 * public (no token, so no rate limit either: the limiter is keyed by token).
 */
export const healthResource = {
  router: healthApi,
  publicPaths: ["/health", "/health/ready"],
  tags: [{ name: "Health", description: "Liveness and readiness for operators; no token needed" }],
};
