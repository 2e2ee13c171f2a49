import { and, eq } from "drizzle-orm";
import { apiTokens, companies } from "../../db/schema/companies";
import { oauthGrants } from "../../db/schema/oauth";
import { refusedToken } from "../../http/auth";
import { createAuthRoute, jsonContent, type Router, wireFields } from "../../http/openapi";
import { RATE_LIMIT, RATE_WINDOW_SECONDS } from "../../ratelimit";
import { meSchema } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/me",
  operationId: "getMe",
  tags: ["Account"],
  summary: "Get the token's company, the token and its rate limit",
  description:
    "Which company this token acts for, the token itself (its id, scope and creation time; never its value) and the rate limit " +
    "it is held to: the first call an integration makes, to check its token and show the shop it is connected to.",
  responses: {
    200: { description: "The token's company, the token and its rate limit", content: jsonContent(meSchema) },
  },
});

export const registerGetMe = (api: Router) =>
  api.openapi(route, async (c) => {
    const { companyId, tokenId, grant } = c.get("auth");
    // One statement; the token was checked by authenticate (its row may be cached), so it is there.
    const db = c.get("db");
    // An OAuth access token stands for its grant: the grant's id, scope and creation time.
    const [row] = grant
      ? await db
          .select({
            company: { id: companies.id, name: companies.name },
            token: { id: oauthGrants.id, scope: oauthGrants.scope, createdAt: oauthGrants.createdAt },
          })
          .from(oauthGrants)
          .innerJoin(companies, eq(companies.id, oauthGrants.companyId))
          .where(and(eq(oauthGrants.id, grant.id), eq(oauthGrants.companyId, companyId)))
      : await db
          .select({
            company: { id: companies.id, name: companies.name },
            token: { id: apiTokens.id, scope: apiTokens.scope, createdAt: apiTokens.createdAt },
          })
          .from(apiTokens)
          .innerJoin(companies, eq(companies.id, apiTokens.companyId))
          .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.companyId, companyId)));
    // Gone since this isolate cached the token (a grant removed with its user): the 401 a lookup would give.
    if (!row) throw refusedToken();
    return c.json(
      {
        company: row.company,
        token: wireFields(row.token, ["id", "scope", "createdAt"]),
        rate_limit: { limit: RATE_LIMIT, window_seconds: RATE_WINDOW_SECONDS },
      },
      200,
    );
  });
