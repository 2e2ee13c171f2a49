import { sql } from "drizzle-orm";
import type { Config } from "../platform/config";
import type { Db } from "../platform/db";
import type { Logger } from "../platform/logger";
import { rowsOf } from "../platform/sql-kit";
import { fillPayload } from "./events";
import type { WebhookRenderers } from "./events-catalog";
import { signatureHeader } from "./sign";
import { webhookUrlProblem } from "./url";

/** Response bytes kept of an answer (and read at most: the rest is never downloaded). */
export const RESPONSE_EXCERPT_BYTES = 1024;
/** Cloudflare Queues delay a message by at most 12 hours; a later due time waits for the cron pass. */
const QUEUE_MAX_DELAY_SECONDS = 12 * 3600;
/** A claim outlives the attempt's timeout by this much, so a crashed consumer's delivery is taken up again. */
const CLAIM_MARGIN_SECONDS = 60;

/** What happened to one attempt. */
export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  excerpt: string | null;
  error: string | null;
}

/** What the queue consumer should send next: this delivery again later, and/or the next one of its resource. */
export interface DeliveryResult {
  retryInSeconds?: number;
  next?: number;
}

interface Claimed {
  id: number;
  attempts: number;
  endpoint_id: number;
  event_pk: number;
  event_id: string;
  type: string;
  company_id: number;
  resource_type: string;
  resource_id: string;
  payload: string | null;
  url: string;
  secrets: string[];
}

/**
 * Takes a delivery for one attempt, in one statement: it must be pending, due, not claimed by another
 * consumer (or that claim expired), its endpoint enabled, and no earlier delivery of the same resource
 * to the same endpoint still pending (per-resource order). Counts the attempt and answers what sending
 * needs, the event's payload as the stored text (the same bytes on every attempt).
 */
async function claim(db: Db, id: number, claimSeconds: number): Promise<Claimed | undefined> {
  const rows = rowsOf<Claimed>(
    await db.execute(sql`
      with claimed as (
        update webhook_deliveries d
        set claimed_until = now() + make_interval(secs => ${claimSeconds}), attempts = d.attempts + 1,
            last_attempt_at = now(), updated_at = now()
        where d.id = ${id} and d.status = 'pending' and d.next_attempt_at <= now()
          and (d.claimed_until is null or d.claimed_until < now())
          and exists (select 1 from webhook_endpoints ep where ep.id = d.endpoint_id and ep.enabled)
          and not exists (
            select 1 from webhook_deliveries p
            where p.endpoint_id = d.endpoint_id and p.resource_type = d.resource_type and p.resource_id = d.resource_id
              and p.status = 'pending' and p.id < d.id)
        returning d.id, d.attempts, d.endpoint_id, d.event_id)
      select c.id, c.attempts, c.endpoint_id, e.id as event_pk, e.event_id, e.type, e.company_id,
             e.resource_type, e.resource_id, e.payload::text as payload, ep.url,
             array_remove(array[ep.secret,
               case when ep.previous_secret_expires_at > now() then ep.previous_secret end], null) as secrets
      from claimed c
      join webhook_events e on e.id = c.event_id
      join webhook_endpoints ep on ep.id = c.endpoint_id`),
  );
  const row = rows[0];
  // bigint columns arrive as text.
  return row && { ...row, id: Number(row.id), event_pk: Number(row.event_pk) };
}

/**
 * Seconds until a pending delivery of an enabled endpoint can be taken, else undefined: it is not due
 * yet (its message came early), or it is claimed. A claim is usually another consumer's attempt in
 * progress, but it may be one whose consumer lost the database after claiming (the claim committed, its
 * answer or the release never came): its message then comes back when the claim lapses, instead of the
 * delivery waiting for the cron pass.
 */
async function earlyBy(db: Db, id: number): Promise<number | undefined> {
  const [row] = rowsOf<{ wait: number | null }>(
    await db.execute(sql`
      select ceil(extract(epoch from greatest(d.next_attempt_at, d.claimed_until) - now()))::int + 1 as wait
      from webhook_deliveries d join webhook_endpoints ep on ep.id = d.endpoint_id
      where d.id = ${id} and d.status = 'pending' and ep.enabled and greatest(d.next_attempt_at, d.claimed_until) > now()`),
  );
  return row?.wait ?? undefined;
}

/** Reads at most `limit` bytes of a body, then stops the download. */
async function readExcerpt(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // Timed out or reset while reading: keep what arrived.
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - at);
    bytes.set(part, at);
    at += part.length;
    if (at >= bytes.length) break;
  }
  return new TextDecoder().decode(bytes);
}

/** One POST of a signed payload: a 2xx within the timeout succeeds; a redirect is a failure (never followed). */
export async function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<AttemptOutcome> {
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal });
  } catch (e) {
    const timedOut = signal.aborted;
    return {
      ok: false,
      status: null,
      excerpt: null,
      error: timedOut ? `timed out after ${timeoutMs} ms` : `request failed: ${errorText(e)}`,
    };
  }
  const excerpt = await readExcerpt(response, RESPONSE_EXCERPT_BYTES);
  const { status } = response;
  if (status >= 200 && status < 300) return { ok: true, status, excerpt, error: null };
  if (status >= 300 && status < 400) {
    return { ok: false, status, excerpt, error: `redirect (HTTP ${status}) not followed; point the endpoint at the final URL` };
  }
  return { ok: false, status, excerpt, error: `HTTP ${status}` };
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 500);

/**
 * Stores an attempt's outcome in one statement: the delivery succeeds, waits for its next attempt, or
 * fails after the last; the endpoint's failure streak resets on success, grows otherwise, and a streak
 * older than the setting with enough failures disables the endpoint with the error as the reason. When
 * the delivery finished (either way), answers the next pending delivery of its resource to its endpoint.
 */
async function record(
  db: Db,
  claimed: Claimed,
  outcome: AttemptOutcome,
  config: Config,
): Promise<{ status: string; next: number | null; disabled: boolean }> {
  const schedule = config.WEBHOOK_RETRY_SCHEDULE;
  const retry = !outcome.ok && claimed.attempts <= schedule.length;
  const status = outcome.ok ? "succeeded" : retry ? "pending" : "failed";
  const delay = retry ? schedule[claimed.attempts - 1] : 0;
  const [row] = rowsOf<{ next: string | null; disabled: boolean | null }>(
    await db.execute(sql`
      with d as (
        update webhook_deliveries set
          status = ${status},
          claimed_until = null,
          next_attempt_at = case when ${retry} then now() + make_interval(secs => ${delay}) else next_attempt_at end,
          enqueued_at = case when ${retry} then now() + make_interval(secs => ${delay}) else enqueued_at end,
          last_response_status = ${outcome.status},
          last_response_body = ${outcome.excerpt},
          last_error = ${outcome.error},
          succeeded_at = case when ${outcome.ok} then now() end,
          updated_at = now()
        where id = ${claimed.id}
        returning id, endpoint_id, resource_type, resource_id),
      ep as (
        update webhook_endpoints e set
          failure_streak = case when ${outcome.ok} then 0 else e.failure_streak + 1 end,
          failing_since = case when ${outcome.ok} then null else coalesce(e.failing_since, now()) end,
          enabled = e.enabled and not disabling.yes,
          disabled_at = case when disabling.yes then now() else e.disabled_at end,
          disabled_reason = case when disabling.yes
            then 'failing since ' || to_char(coalesce(e.failing_since, now()) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ' ('
              || (e.failure_streak + 1) || ' failed attempts); last error: ' || ${outcome.error}
            else e.disabled_reason end,
          updated_at = now()
        from (select (not ${outcome.ok}) and ep0.enabled
                and ep0.failure_streak + 1 >= ${config.WEBHOOK_DISABLE_MIN_FAILURES}
                and coalesce(ep0.failing_since, now()) <= now() - make_interval(hours => ${config.WEBHOOK_DISABLE_AFTER_HOURS}) as yes
              from webhook_endpoints ep0 where ep0.id = ${claimed.endpoint_id}) disabling
        where e.id = ${claimed.endpoint_id}
        returning disabling.yes as disabled),
      nx as (
        update webhook_deliveries set enqueued_at = now(), updated_at = now()
        where ${status} <> 'pending' and id = (
          select n.id from webhook_deliveries n, d
          where n.endpoint_id = d.endpoint_id and n.resource_type = d.resource_type and n.resource_id = d.resource_id
            and n.status = 'pending' and n.id > d.id
          order by n.id limit 1)
        returning id)
      select (select id from nx) as next, (select disabled from ep) as disabled`),
  );
  return { status, next: row?.next == null ? null : Number(row.next), disabled: row?.disabled === true };
}

export interface DeliveryContext {
  db: Db;
  config: Config;
  logger: Logger;
  renderers: WebhookRenderers;
}

/** Renders and stores a missing payload (the after-commit step was lost); answers the stored text. */
export async function renderPayload(
  ctx: Pick<DeliveryContext, "db" | "renderers">,
  event: { id: number; companyId: number; type: string; resourceType: string; resourceId: string },
): Promise<string> {
  const render = ctx.renderers[event.resourceType];
  return fillPayload(ctx.db, event.id, render ? await render(ctx.db, event) : null);
}

/**
 * One delivery attempt, if the delivery can be taken (see `claim`); answers what to enqueue next.
 * Errors of the database or a bug propagate (the queue retries the message).
 */
export async function deliver(ctx: DeliveryContext, deliveryId: number): Promise<DeliveryResult> {
  const { db, config, logger } = ctx;
  const claimed = await claim(db, deliveryId, Math.ceil(config.WEBHOOK_TIMEOUT_MS / 1000) + CLAIM_MARGIN_SECONDS);
  if (!claimed) {
    // Finished, claimed elsewhere, waiting behind an earlier delivery of its resource (sent when that one
    // finishes), its endpoint disabled, or early: only the last needs sending again.
    const wait = await earlyBy(db, deliveryId);
    return wait === undefined ? {} : { retryInSeconds: Math.min(wait, QUEUE_MAX_DELAY_SECONDS) };
  }
  const payload =
    claimed.payload ??
    (await renderPayload(ctx, {
      id: claimed.event_pk,
      companyId: claimed.company_id,
      type: claimed.type,
      resourceType: claimed.resource_type,
      resourceId: claimed.resource_id,
    }));
  const refused = webhookUrlProblem(claimed.url, { allowLocalHttp: config.WEBHOOK_ALLOW_LOCAL_HTTP });
  let outcome: AttemptOutcome;
  if (refused) outcome = { ok: false, status: null, excerpt: null, error: `URL refused: ${refused}` };
  else {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      "content-type": "application/json",
      "user-agent": "crm-api-webhooks/1",
      "webhook-id": claimed.event_id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": await signatureHeader(claimed.secrets, claimed.event_id, timestamp, payload),
    };
    outcome = await post(claimed.url, headers, payload, config.WEBHOOK_TIMEOUT_MS);
  }
  const stored = await record(db, claimed, outcome, config);
  const fields = {
    delivery_id: claimed.id,
    event_id: claimed.event_id,
    endpoint_id: claimed.endpoint_id,
    attempt: claimed.attempts,
    response_status: outcome.status,
  };
  if (outcome.ok) logger.info("webhook delivered", fields);
  else logger.warn("webhook attempt failed", { ...fields, status: stored.status, error: outcome.error });
  if (stored.disabled) logger.warn("webhook endpoint disabled after a failure streak", { endpoint_id: claimed.endpoint_id });
  const schedule = config.WEBHOOK_RETRY_SCHEDULE;
  return {
    ...(stored.status === "pending" ? { retryInSeconds: Math.min(schedule[claimed.attempts - 1], QUEUE_MAX_DELAY_SECONDS) } : {}),
    ...(stored.next !== null ? { next: stored.next } : {}),
  };
}
