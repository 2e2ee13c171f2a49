import { notFound } from "../../http/errors";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../http/openapi";
import { findEndpoint } from "./queries";
import { serializeEndpoint, webhookEndpointEnvelopeSchema } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/webhook-endpoints/{id}",
  operationId: "getWebhookEndpoint",
  tags: ["Webhooks"],
  summary: "Get a webhook endpoint",
  description: "The endpoint with its state (enabled, disabled reason, failure streak); never its signing secret.",
  request: { params: idParam("Webhook endpoint id") },
  errors: [404],
  responses: {
    200: { description: "The endpoint", content: jsonContent(webhookEndpointEnvelopeSchema) },
  },
});

export const registerGetWebhookEndpoint = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const row = await findEndpoint(c.get("db"), c.get("auth").companyId, id);
    if (!row) throw notFound("Webhook endpoint");
    return c.json({ webhook_endpoint: serializeEndpoint(row) }, 200);
  });
