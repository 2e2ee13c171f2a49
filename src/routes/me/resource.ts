import { meRoutes } from ".";
/** Who am I: the token's company, the token and its rate limit; built on its first request (src/resources.ts lists it). */
export const meResource = {
  prefix: "/me",
  tags: [{ name: "Account", description: "The company and the API token a request acts for" }],
  routes: () => meRoutes,
};
