import { and, eq } from "drizzle-orm";
import { webhookEndpoints } from "../../db/schema/webhooks";
import { invalid } from "../../http/errors";
import type { Config } from "../../platform/config";
import type { Db } from "../../platform/db";
import { webhookUrlProblem } from "../../webhooks/url";

/** The company's endpoint, or undefined (another company's endpoint looks the same as none). */
export async function findEndpoint(db: Db, companyId: number, id: number) {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.companyId, companyId), eq(webhookEndpoints.id, id)))
    .limit(1);
  return row;
}

/** The endpoint row of the company (tenant condition for every statement on one endpoint). */
export const ownEndpoint = (companyId: number, id: number) => and(eq(webhookEndpoints.companyId, companyId), eq(webhookEndpoints.id, id));

/** Random bytes of a signing secret: 32 (Standard Webhooks accepts 24 to 64). */
const SECRET_BYTES = 32;

/** A new signing secret in the Standard Webhooks format: `whsec_` + base64 of random bytes. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** 400 naming `url` with the reason when the URL may not receive webhooks on this deployment. */
export function checkEndpointUrl(config: Config, url: string | undefined): void {
  if (url === undefined) return;
  const problem = webhookUrlProblem(url, { allowLocalHttp: config.WEBHOOK_ALLOW_LOCAL_HTTP });
  if (problem) throw invalid(`Invalid webhook URL: ${problem}`, [{ field: "url", message: problem }]);
}
