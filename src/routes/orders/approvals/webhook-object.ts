import type { WebhookRenderer } from "../../../webhooks/events-catalog";
import { loadApproval } from "./read";
import { serializeApproval } from "./schema";

/** An approval event's object as the API returns it now (GET /approvals/{id}). */
export const renderApprovalObject: WebhookRenderer = async (db, { companyId, resourceId }) => {
  const row = await loadApproval(db, companyId, Number(resourceId));
  return row ? JSON.stringify(serializeApproval(row.approval, row.status)) : undefined;
};
