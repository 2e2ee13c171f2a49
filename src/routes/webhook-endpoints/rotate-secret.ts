import { applyIdempotentChange } from "../../changes/change";
import { notFound } from "../../http/errors";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../http/openapi";
import { PREVIOUS_SECRET_HOURS, rotateEndpointSecret } from "./operations";
import { serializeEndpoint, webhookEndpointWithSecretSchema } from "./schema";

const route = createAuthRoute({
  method: "post",
  path: "/webhook-endpoints/{id}/rotate-secret",
  operationId: "rotateWebhookEndpointSecret",
  // A retried rotation whose first answer was lost gets that answer again, not a third secret.
  idempotent: true,
  tags: ["Webhooks"],
  summary: "Rotate a webhook endpoint's signing secret",
  description:
    `Replaces the signing secret and answers the new one (shown only here). For ${PREVIOUS_SECRET_HOURS} hours every delivery ` +
    "carries two signatures in `webhook-signature`, one per secret, so a receiver can switch at its own pace; " +
    "`previous_secret_expires_at` says until when. Rotating again within that time retires the older of the two at once.",
  request: { params: idParam("Webhook endpoint id") },
  errors: [404],
  responses: {
    200: {
      description: "The endpoint and its new signing secret",
      content: jsonContent(webhookEndpointWithSecretSchema),
    },
  },
});

export const registerRotateWebhookEndpointSecret = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    return applyIdempotentChange(c, async (change) => {
      const rotated = await rotateEndpointSecret(change, id);
      if (!rotated) throw notFound("Webhook endpoint");
      const { row, secret } = rotated;
      return { status: 200, body: { webhook_endpoint: serializeEndpoint(row), secret } };
    });
  });
