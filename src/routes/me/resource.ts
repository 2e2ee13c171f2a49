/** Who am I: the token's company, the token and its rate limit; built on the first request under /me (src/resources.ts lists it). */
export const meResource = {
  prefix: "/me",
  tags: [{ name: "Account", description: "The company and the API token a request acts for" }],
  load: async () => (await import(".")).meRoutes,
};
