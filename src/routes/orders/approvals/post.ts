import { applyIdempotentChange } from "../../../changes/change";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../../http/openapi";
import { approvalEvents } from "./events";
import { createApproval, newApprovalToken, tokenDigest } from "./queries";
import { approvalCreatedSchema, approvalCreateSchema, DEFAULT_EXPIRY_DAYS, MAX_APPROVAL_ARTWORKS } from "./schema";

const route = createAuthRoute({
  operationId: "createOrderApproval",
  readsFirst: true,
  idempotent: true,
  errors: [404],
  method: "post",
  path: "/orders/{id}/approvals",
  tags: ["Approvals"],
  summary: "Ask the customer to approve proofs",
  description:
    `Asks the customer to approve up to ${MAX_APPROVAL_ARTWORKS} live artworks of the order at their current versions, and with ` +
    "`include_total` the order's current total. Answers the approval and `url`, the public page the customer answers on (no sign-in). " +
    "The link's token (256 random bits) is shown only in this answer: the API keeps its SHA-256 digest. The link expires at " +
    `\`expires_at\` (default ${DEFAULT_EXPIRY_DAYS} days) and can be revoked. If an artwork or the total changes while it is pending, ` +
    "the approval becomes `stale` and the page takes no answer. An artwork id not of this order is 400 naming it; another company's order is 404. " +
    "With an `Idempotency-Key`, the stored answer (url included) is what a replay gets, for the key's lifetime.",
  request: {
    params: idParam("Order (project) id"),
    body: { required: true, content: { "application/json": { schema: approvalCreateSchema() } } },
  },
  responses: {
    200: { description: "The approval and its public link", content: jsonContent(approvalCreatedSchema) },
  },
});

export const registerCreateApproval = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const token = newApprovalToken();
    const digest = await tokenDigest(token);
    return applyIdempotentChange(c, async (change) => {
      const approval = await createApproval(change, id, body, digest);
      change.objects(approvalEvents, () => JSON.stringify(approval));
      return { status: 200 as const, body: { approval, url: `${new URL(c.req.url).origin}/approve/${token}` } };
    });
  });
