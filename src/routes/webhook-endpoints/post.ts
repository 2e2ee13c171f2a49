import { applyIdempotentChange } from "../../changes/change";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { createEndpoint } from "./operations";
import { checkEndpointUrl } from "./queries";
import { type EndpointBodies, serializeEndpoint, webhookEndpointWithSecretSchema } from "./schema";

const route = (bodySchema: EndpointBodies["create"]) =>
  createAuthRoute({
    method: "post",
    path: "/webhook-endpoints",
    operationId: "createWebhookEndpoint",
    idempotent: true,
    tags: ["Webhooks"],
    summary: "Create a webhook endpoint",
    description:
      "Registers a URL that receives the company's change events (the `webhooks` section of this document lists them). " +
      "The answer carries the signing secret, `secret`: it is shown only here and by rotate-secret, never by a read. " +
      "`url` must be https:// on a public host; a URL that may not receive webhooks is a 400 naming `url` with the reason.",
    request: { body: { required: true, content: { "application/json": { schema: bodySchema } } } },
    responses: {
      200: {
        description: "The created endpoint and its signing secret",
        content: jsonContent(webhookEndpointWithSecretSchema),
      },
    },
  });

export const registerCreateWebhookEndpoint = (api: Router, bodySchema: EndpointBodies["create"]) =>
  api.openapi(route(bodySchema), async (c) => {
    const body = c.req.valid("json");
    checkEndpointUrl(c.get("config"), body.url);
    return applyIdempotentChange(c, async (change) => {
      const { row, secret } = await createEndpoint(change, body);
      return { status: 200, body: { webhook_endpoint: serializeEndpoint(row), secret } };
    });
  });
