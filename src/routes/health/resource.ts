import { healthRoutes } from ".";
/**
 * Health: two small routes for load balancers and monitors; public (no token, so no rate limit either:
 * the limiter is keyed by token). Each built on its first probe, like every route: most isolates serve
 * only API traffic and never get one.
 */
export const healthResource = {
  prefix: "/health",
  publicPaths: ["/health", "/health/ready"],
  tags: [{ name: "Health", description: "Liveness and readiness for operators; no token needed" }],
  routes: () => healthRoutes,
};
