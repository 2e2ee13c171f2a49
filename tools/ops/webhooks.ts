import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "../../src/db/schema";
import { iso, wireFields } from "../../src/http/openapi";
import type { Db } from "../../src/platform/db";
import { requireCompany } from "./commands";
import { CommandError } from "./errors";

/** Most rows `webhooks failed` prints. */
const MAX_LIMIT = 1000;

/** `webhooks list`: every endpoint (of one company, or all) with its state and delivery counts; never a secret. */
export async function listWebhookEndpoints(db: Db, opts: { companyId?: number }) {
  if (opts.companyId !== undefined) await requireCompany(db, opts.companyId);
  const e = webhookEndpoints;
  const d = webhookDeliveries;
  const count = (status: string) => sql<number>`count(${d.id}) filter (where ${d.status} = ${status})`.mapWith(Number);
  const rows = await db
    .select({
      id: e.id,
      companyId: e.companyId,
      url: e.url,
      description: e.description,
      events: e.events,
      enabled: e.enabled,
      disabledReason: e.disabledReason,
      disabledAt: e.disabledAt,
      failureStreak: e.failureStreak,
      failingSince: e.failingSince,
      pending: count("pending"),
      failed: count("failed"),
    })
    .from(e)
    .leftJoin(d, eq(d.endpointId, e.id))
    .where(opts.companyId === undefined ? undefined : eq(e.companyId, opts.companyId))
    .groupBy(e.id)
    .orderBy(e.companyId, e.id);
  return {
    endpoints: rows.map((r) => ({
      ...wireFields(r, ["id", "companyId", "url", "description", "events", "enabled", "disabledReason", "disabledAt", "failureStreak"]),
      failing_since: iso(r.failingSince),
      deliveries_pending: r.pending,
      deliveries_failed: r.failed,
    })),
  };
}

/** `webhooks failed`: the latest deliveries delivery gave up on, with the last answer or error. */
export async function failedWebhookDeliveries(db: Db, opts: { companyId?: number; limit?: number }) {
  const limit = opts.limit ?? 20;
  if (limit < 1 || limit > MAX_LIMIT) throw new CommandError(`--limit must be from 1 to ${MAX_LIMIT}`);
  if (opts.companyId !== undefined) await requireCompany(db, opts.companyId);
  const d = webhookDeliveries;
  const conditions: SQL[] = [eq(d.status, "failed")];
  if (opts.companyId !== undefined) conditions.push(eq(d.companyId, opts.companyId));
  const rows = await db
    .select({
      id: d.id,
      companyId: d.companyId,
      endpointId: d.endpointId,
      url: webhookEndpoints.url,
      eventId: webhookEvents.eventId,
      eventType: webhookEvents.type,
      attempts: d.attempts,
      lastAttemptAt: d.lastAttemptAt,
      lastResponseStatus: d.lastResponseStatus,
      lastResponseBody: d.lastResponseBody,
      lastError: d.lastError,
      createdAt: d.createdAt,
    })
    .from(d)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, d.endpointId))
    .innerJoin(webhookEvents, eq(webhookEvents.id, d.eventId))
    .where(and(...conditions))
    .orderBy(desc(d.id))
    .limit(limit);
  return {
    // Every selected column, under its wire name.
    deliveries: rows.map((r) => wireFields(r, Object.keys(r) as (keyof typeof r)[])),
  };
}
