import { applyChange } from "../../changes/change";
import { notFound } from "../../http/errors";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../http/openapi";
import { updateEndpoint } from "./operations";
import { checkEndpointUrl } from "./queries";
import { type EndpointBodies, serializeEndpoint, webhookEndpointEnvelopeSchema } from "./schema";

const route = (bodySchema: EndpointBodies["patch"]) =>
  createAuthRoute({
    method: "patch",
    path: "/webhook-endpoints/{id}",
    operationId: "updateWebhookEndpoint",
    tags: ["Webhooks"],
    summary: "Update, disable or re-enable a webhook endpoint",
    description:
      "Partial update of `url`, `events`, `description` and `enabled`; an empty body is a 400. `enabled: false` stops deliveries " +
      "and records the reason; `enabled: true` on a disabled endpoint (disabled by you or after a long failure streak) clears " +
      "`disabled_reason`, `disabled_at`, `failure_streak` and `failing_since`, and the deliveries that waited meanwhile are sent at once " +
      "(in order per resource; events that happened while it was disabled were not recorded for it).",
    request: {
      params: idParam("Webhook endpoint id"),
      body: { required: true, content: { "application/json": { schema: bodySchema } } },
    },
    errors: [404],
    responses: {
      200: { description: "The updated endpoint", content: jsonContent(webhookEndpointEnvelopeSchema) },
    },
  });

export const registerPatchWebhookEndpoint = (api: Router, bodySchema: EndpointBodies["patch"]) =>
  api.openapi(route(bodySchema), async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    checkEndpointUrl(c.get("config"), body.url);
    return applyChange(c, async (change) => {
      const row = await updateEndpoint(change, id, body);
      if (!row) throw notFound("Webhook endpoint");
      return c.json({ webhook_endpoint: serializeEndpoint(row) }, 200);
    });
  });
