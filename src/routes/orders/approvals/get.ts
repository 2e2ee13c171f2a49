import { notFound } from "../../../http/errors";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../../http/openapi";
import { loadApproval } from "./read";
import { approvalEnvelopeSchema, serializeApproval } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/approvals/{id}",
  operationId: "getApproval",
  tags: ["Approvals"],
  summary: "Get a proof approval",
  description:
    "The approval with its status (computed now: `expired` and `stale` included), the answer, who gave it and when. Never the link. " +
    "Another company's approval, or one of a deleted order, is 404.",
  request: { params: idParam("Approval id") },
  errors: [404],
  responses: { 200: { description: "The approval", content: jsonContent(approvalEnvelopeSchema) } },
});

export const registerGetApproval = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const row = await loadApproval(c.get("db"), c.get("auth").companyId, id);
    if (!row) throw notFound("Approval");
    return c.json({ approval: serializeApproval(row.approval, row.status) }, 200);
  });
