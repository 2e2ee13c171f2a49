import { and, eq } from "drizzle-orm";
import { approvals } from "../../../db/schema/approvals";
import { projects } from "../../../db/schema/orders";
import type { Db } from "../../../platform/db";
import { liveProjects } from "../queries";
import { approvalStatusSql } from "./status";

/** The approval's row and its computed status: what every read selects. */
export const approvalWithStatus = { approval: approvals, status: approvalStatusSql };

/** The company's approval `id` (of a live order) with its status, in one statement; undefined when there is none. */
export async function loadApproval(db: Db, companyId: number, id: number) {
  const [row] = await db
    .select(approvalWithStatus)
    .from(approvals)
    .innerJoin(projects, eq(projects.id, approvals.projectId))
    .where(and(eq(approvals.id, id), eq(approvals.companyId, companyId), liveProjects(companyId)));
  return row;
}
