import { z } from "@hono/zod-openapi";
import { serializeClient } from "../../domain/client";
import { invalid, notFound } from "../../http/errors";
import { ifNoneMatchHeader, notModified, notModifiedResponse, withEtag } from "../../http/etag";
import { createAuthRoute, intId, jsonContent, type Router } from "../../http/openapi";
import { findLiveClient, findLiveClientByEmail } from "./queries";
import { clientEnvelopeSchema } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/clients/{id}",
  operationId: "getClient",
  tags: ["Clients"],
  summary: "Get a client by id or email",
  description:
    "`id` is a numeric client id or a URL-encoded email. With the `email` query parameter the path segment is a placeholder (e.g. `_`). " +
    "Email lookup is a case-insensitive exact match over live clients; if several share the email, the oldest (lowest id) is returned.",
  request: {
    params: z.object({
      id: z
        .string()
        .min(1)
        .max(320)
        .openapi({ param: { name: "id", in: "path" }, example: "42" }),
    }),
    query: z.object({
      email: z
        .email()
        .max(320)
        .optional()
        .openapi({ param: { name: "email", in: "query" }, example: "maya@northside.example" }),
    }),
    headers: ifNoneMatchHeader(),
  },
  errors: [404],
  responses: {
    200: withEtag({ description: "The client", content: jsonContent(clientEnvelopeSchema) }),
    ...notModifiedResponse,
  },
});

const emailSchema = z.email();

export const registerGetClient = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const { email } = c.req.valid("query");
    const db = c.get("db");
    const auth = c.get("auth");

    const numericId = intId(id);
    let row: Awaited<ReturnType<typeof findLiveClient>>;
    if (email) row = await findLiveClientByEmail(db, auth.companyId, email);
    else if (numericId !== undefined) row = await findLiveClient(db, auth.companyId, numericId);
    else if (emailSchema.safeParse(id).success) row = await findLiveClientByEmail(db, auth.companyId, id);
    else throw invalid("`id` must be a numeric client id or an email address", [{ field: "id", message: "Not a client id or email" }]);

    if (!row) throw notFound("Client");
    return notModified(c, row.etag) ?? c.json({ client: serializeClient(row.client) }, 200);
  });
