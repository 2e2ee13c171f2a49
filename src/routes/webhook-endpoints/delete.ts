import { applyChange } from "../../changes/change";
import { notFound } from "../../http/errors";
import { createAuthRoute, deletedSchema, idParam, jsonContent, type Router } from "../../http/openapi";
import { deleteEndpoint } from "./operations";

const route = createAuthRoute({
  method: "delete",
  path: "/webhook-endpoints/{id}",
  operationId: "deleteWebhookEndpoint",
  tags: ["Webhooks"],
  summary: "Delete a webhook endpoint",
  description:
    "Deletes the endpoint for good, with its delivery log (pending deliveries are dropped, never sent). " +
    'Answers `{ "deleted": true, "id": <id> }`; a repeated DELETE is 404.',
  request: { params: idParam("Webhook endpoint id") },
  errors: [404],
  responses: {
    200: {
      description: "The endpoint was deleted",
      content: jsonContent(() => deletedSchema("WebhookEndpointDeleted", "The deleted endpoint's id", 3)),
    },
  },
});

export const registerDeleteWebhookEndpoint = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    return applyChange(c, async (change) => {
      // One statement: the deliveries go with it (ON DELETE CASCADE).
      const deleted = await deleteEndpoint(change, id);
      if (deleted === undefined) throw notFound("Webhook endpoint");
      return c.json({ deleted: true as const, id: deleted }, 200);
    });
  });
