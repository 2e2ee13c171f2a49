import { and, asc, desc, eq, ne, type SQL, sql } from "drizzle-orm";
import type { Change } from "../../changes/change";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "../../db/schema/webhooks";
import type { Db } from "../../platform/db";
import { newSecret, ownEndpoint } from "./queries";
import { endpointColumns } from "./schema";

/**
 * What the `/webhook-endpoints` operations write, shared by their route handlers and the settings area's
 * Webhooks page (src/settings/webhooks.tsx): each takes the request's Change (its company and connection)
 * and answers the row, or undefined for a missing endpoint (another company's looks the same).
 */

/**
 * A write that goes with the operation's change in its one statement (the settings area's audit entry):
 * SQL reading the changed rows from the CTE `changed` (the endpoint, or for a re-send the delivery),
 * written once per row, so nothing when nothing changed.
 */
export type AlsoWrite = (changed: SQL) => SQL;

/** `also` as a CTE of the statement (a data-modifying CTE runs whether or not the select reads it). */
const alsoCtes = (db: Db, also: AlsoWrite | undefined) => (also ? [db.$with("also", {}).as(also(sql.raw("changed")))] : []);

/** The reason shown for an endpoint its owner disabled. */
export const DISABLED_BY_API = "Disabled through the API (PATCH enabled: false)";

/** How long the replaced secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_HOURS = 24;

export async function createEndpoint(
  change: Change,
  body: { url: string; events: string[]; description?: string | null },
  also?: AlsoWrite,
) {
  const { db } = change;
  const secret = newSecret();
  const changed = db.$with("changed").as(
    db
      .insert(webhookEndpoints)
      .values({ companyId: change.companyId, url: body.url, events: body.events, description: body.description ?? null, secret })
      .returning(),
  );
  const [row] = await db
    .with(changed, ...alsoCtes(db, also))
    .select()
    .from(changed);
  return { row, secret };
}

/** What `enabled` changes; only a change of state touches the disabled and streak fields (SET reads the old row). */
function enabledColumns(enabled: boolean | undefined, reason: string) {
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
    disabledReason: sql`case when ${t.enabled} then ${reason} else ${t.disabledReason} end`,
    disabledAt: sql`case when ${t.enabled} then now() else ${t.disabledAt} end`,
  };
}

export async function updateEndpoint(
  change: Change,
  id: number,
  patch: { url?: string; events?: string[]; description?: string | null; enabled?: boolean },
  disabledReason = DISABLED_BY_API,
  also?: AlsoWrite,
) {
  const { db } = change;
  const { enabled, ...fields } = patch;
  const changed = db.$with("changed").as(
    db
      .update(webhookEndpoints)
      .set({ ...endpointColumns(fields), ...enabledColumns(enabled, disabledReason), updatedAt: sql`now()` })
      .where(ownEndpoint(change.companyId, id))
      .returning(),
  );
  const [row] = await db
    .with(changed, ...alsoCtes(db, also))
    .select()
    .from(changed);
  // Deliveries that waited while it was disabled go out now, not at the next cron pass.
  if (row && enabled === true) change.resumeDeliveries(id);
  return row;
}

/** Deletes the endpoint with its delivery log (ON DELETE CASCADE): its id, or undefined. */
export async function deleteEndpoint(change: Change, id: number, also?: AlsoWrite) {
  const { db } = change;
  const changed = db
    .$with("changed")
    .as(db.delete(webhookEndpoints).where(ownEndpoint(change.companyId, id)).returning({ id: webhookEndpoints.id }));
  const [row] = await db
    .with(changed, ...alsoCtes(db, also))
    .select()
    .from(changed);
  return row?.id;
}

export async function rotateEndpointSecret(change: Change, id: number, also?: AlsoWrite) {
  const { db } = change;
  const secret = newSecret();
  const t = webhookEndpoints;
  // One statement: SET reads the row as it was, so the current secret becomes the previous one.
  const changed = db.$with("changed").as(
    db
      .update(t)
      .set({
        secret,
        previousSecret: sql`${t.secret}`,
        previousSecretExpiresAt: sql`now() + make_interval(hours => ${PREVIOUS_SECRET_HOURS})`,
        updatedAt: sql`now()`,
      })
      .where(ownEndpoint(change.companyId, id))
      .returning(),
  );
  const [row] = await db
    .with(changed, ...alsoCtes(db, also))
    .select()
    .from(changed);
  return row ? { row, secret } : undefined;
}

export type RetryOutcome =
  | { ok: true; delivery: typeof webhookDeliveries.$inferSelect; event: { eventId: string; type: string } }
  | { ok: false; reason: "missing" | "pending" | "disabled"; status?: string };

/** Makes a finished delivery pending again (due at once) and hands it to the queue after commit. */
export async function retryDelivery(change: Change, id: number, deliveryId: number, also?: AlsoWrite): Promise<RetryOutcome> {
  const { db, companyId } = change;
  const d = webhookDeliveries;
  // The delivery, only under this company's endpoint: another endpoint's or company's delivery is missing.
  const target = and(eq(d.id, deliveryId), eq(d.endpointId, id), eq(d.companyId, companyId));
  const endpointEnabled = sql`exists (select 1 from ${webhookEndpoints} e where e.id = ${d}.endpoint_id and e.enabled)`;
  // One statement: the state checks are in the UPDATE's WHERE, so a concurrent attempt cannot slip between check and write.
  const updated = db.$with("changed").as(
    db
      .update(d)
      .set({
        status: "pending",
        attempts: 0,
        nextAttemptAt: sql`now()`,
        claimedUntil: null,
        enqueuedAt: sql`now()`,
        succeededAt: null,
        updatedAt: sql`now()`,
      })
      .where(and(target, ne(d.status, "pending"), endpointEnabled))
      .returning(),
  );
  const [row] = await db
    .with(updated, ...alsoCtes(db, also))
    .select()
    .from(updated)
    .innerJoin(webhookEvents, eq(webhookEvents.id, updated.eventId));
  if (!row) {
    // Nothing was written: say why.
    const [current] = await db
      .select({ status: d.status, enabled: webhookEndpoints.enabled })
      .from(d)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, d.endpointId))
      .where(target);
    if (!current) return { ok: false, reason: "missing" };
    return current.enabled ? { ok: false, reason: "pending", status: current.status } : { ok: false, reason: "disabled" };
  }
  change.sendDeliveries([deliveryId]);
  return { ok: true, delivery: row.changed, event: row.webhook_events };
}

/** The company's endpoints in creation order (a company has few; the API pages them). */
export const listEndpoints = (db: Db, companyId: number) =>
  db.select().from(webhookEndpoints).where(eq(webhookEndpoints.companyId, companyId)).orderBy(asc(webhookEndpoints.id));

/** An endpoint's newest `limit` deliveries with their events' ids and types. */
export const recentDeliveries = (db: Db, companyId: number, endpointId: number, limit = 20) =>
  db
    .select({ delivery: webhookDeliveries, event: { eventId: webhookEvents.eventId, type: webhookEvents.type } })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.companyId, companyId)))
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit);
