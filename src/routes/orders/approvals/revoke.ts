import { applyIdempotentChange } from "../../../changes/change";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../../http/openapi";
import { approvalEvents } from "./events";
import { revokeApproval } from "./queries";
import { approvalEnvelopeSchema } from "./schema";

const route = createAuthRoute({
  method: "post",
  // It ends an approval that exists (its link stops working).
  changesExisting: true,
  path: "/approvals/{id}/revoke",
  operationId: "revokeApproval",
  idempotent: true,
  tags: ["Approvals"],
  summary: "Revoke a proof approval's link",
  description:
    "Revokes an unanswered approval: its link then shows the same page as a link that never existed. Revoking a revoked approval " +
    "answers it unchanged; an answered one is 409. Another company's approval is 404.",
  request: { params: idParam("Approval id") },
  errors: [404, 409],
  responses: { 200: { description: "The revoked approval", content: jsonContent(approvalEnvelopeSchema) } },
});

export const registerRevokeApproval = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    return applyIdempotentChange(c, async (change) => {
      const approval = await revokeApproval(change, id);
      change.objects(approvalEvents, () => JSON.stringify(approval));
      return { status: 200 as const, body: { approval } };
    });
  });
