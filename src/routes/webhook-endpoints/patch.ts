import { sql } from "drizzle-orm";
import { applyChange } from "../../changes/change";
import { webhookEndpoints } from "../../db/schema/webhooks";
import { notFound } from "../../http/errors";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../http/openapi";
import { checkEndpointUrl, ownEndpoint } from "./queries";
import { type EndpointBodies, endpointColumns, serializeEndpoint, webhookEndpointEnvelopeSchema } from "./schema";

/** The reason shown for an endpoint its owner disabled. */
export const DISABLED_BY_API = "Disabled through the API (PATCH enabled: false)";

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

/** What `enabled` changes; only a change of state touches the disabled and streak fields (SET reads the old row). */
function enabledColumns(enabled: boolean | undefined) {
  const t = webhookEndpoints;
  if (enabled === undefined) return {};
  if (enabled) {
    return {
      enabled: true,
      disabledReason: sql`case when ${t.enabled} then ${t.disabledReason} else null end`,
      disabledAt: sql`case when ${t.enabled} then ${t.disabledAt} else null end`,
      failureStreak: sql`case when ${t.enabled} then ${t.failureStreak} else 0 end`,
      failingSince: sql`case when ${t.enabled} then ${t.failingSince} else null end`,
    };
  }
  return {
    enabled: false,
    disabledReason: sql`case when ${t.enabled} then ${DISABLED_BY_API} else ${t.disabledReason} end`,
    disabledAt: sql`case when ${t.enabled} then now() else ${t.disabledAt} end`,
  };
}

export const registerPatchWebhookEndpoint = (api: Router, bodySchema: EndpointBodies["patch"]) =>
  api.openapi(route(bodySchema), async (c) => {
    const { id } = c.req.valid("param");
    const { enabled, ...fields } = c.req.valid("json");
    checkEndpointUrl(c.get("config"), fields.url);
    return applyChange(c, async (change) => {
      const [row] = await change.db
        .update(webhookEndpoints)
        .set({ ...endpointColumns(fields), ...enabledColumns(enabled), updatedAt: sql`now()` })
        .where(ownEndpoint(change.companyId, id))
        .returning();
      if (!row) throw notFound("Webhook endpoint");
      // Deliveries that waited while it was disabled go out now, not at the next cron pass.
      if (enabled === true) change.resumeDeliveries(id);
      return c.json({ webhook_endpoint: serializeEndpoint(row) }, 200);
    });
  });
