import { sql } from "drizzle-orm";
import { applyIdempotentChange } from "../../changes/change";
import { webhookEndpoints } from "../../db/schema/webhooks";
import { notFound } from "../../http/errors";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../http/openapi";
import { newSecret, ownEndpoint } from "./queries";
import { serializeEndpoint, webhookEndpointWithSecretSchema } from "./schema";

/** How long the replaced secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_HOURS = 24;

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
      const secret = newSecret();
      const t = webhookEndpoints;
      // One statement: SET reads the row as it was, so the current secret becomes the previous one.
      const [row] = await change.db
        .update(t)
        .set({
          secret,
          previousSecret: sql`${t.secret}`,
          previousSecretExpiresAt: sql`now() + make_interval(hours => ${PREVIOUS_SECRET_HOURS})`,
          updatedAt: sql`now()`,
        })
        .where(ownEndpoint(change.companyId, id))
        .returning();
      if (!row) throw notFound("Webhook endpoint");
      return { status: 200, body: { webhook_endpoint: serializeEndpoint(row), secret } };
    });
  });
