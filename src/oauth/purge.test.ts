import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiUrl, newCompany, sql } from "../../test/support/api";
import { oauthFlows } from "../../test/support/oauth";
import { signedIn } from "../../test/support/settings";
import { type RunningWorker, startWorker } from "../../test/support/worker";

/*
 * The cron pass's OAuth retention (src/oauth/purge.ts), run by the Worker's own `scheduled` handler in
 * workerd: a Worker of its own on the suite's database, as the delivery tests trigger the cron.
 */

const origin = () => apiUrl().replace(/\/api\/v1$/, "");
const { register, tokensFor, tokenRequest } = oauthFlows(origin);
let worker: RunningWorker;

beforeAll(async () => {
  const logFile = path.join(mkdtempSync(path.join(tmpdir(), "crm-oauth-purge-")), "worker.log");
  worker = await startWorker({ script: inject("workerScript"), bindings: inject("workerBindings"), logFile });
});
afterAll(async () => {
  await worker?.dispose();
});

const ago = (days: number) => `now() - interval '${days} days'`;

async function client(kind: "dcr" | "cimd", opts: { createdDaysAgo?: number; fetchedDaysAgo?: number; granted?: boolean } = {}) {
  const clientId = kind === "dcr" ? `crm_client_purge_${randomUUID()}` : `https://purge.example/${randomUUID()}.json`;
  const [row] = await sql<{ id: number }>(
    `insert into oauth_clients (client_id, kind, name, redirect_uris, created_at, fetched_at, granted_at)
     values ($1, $2, 'Purge test', array['http://127.0.0.1/cb'], ${ago(opts.createdDaysAgo ?? 0)}, ${ago(opts.fetchedDaysAgo ?? 0)},
       ${opts.granted ? "now()" : "null"}) returning id`,
    [clientId, kind],
  );
  return row.id;
}

async function grant(companyId: number, userId: number, clientId: number, createdDaysAgo: number) {
  const [row] = await sql<{ id: number }>(
    `insert into oauth_grants (company_id, user_id, client_id, scope, resource, created_at)
     values ($1, $2, $3, 'read', 'http://x/api/v1', ${ago(createdDaysAgo)}) returning id`,
    [companyId, userId, clientId],
  );
  await sql(
    `insert into oauth_codes (grant_id, code_hash, redirect_uri, code_challenge, expires_at, used_at)
     values ($1, $2, 'http://127.0.0.1/cb', 'x', ${ago(createdDaysAgo)}, ${ago(createdDaysAgo)})`,
    [row.id, randomUUID()],
  );
  return row.id;
}

async function token(grantId: number, kind: "access" | "refresh", expiredDaysAgo: number, used = false) {
  const [row] = await sql<{ id: number }>(
    `insert into oauth_tokens (grant_id, kind, token_hash, expires_at, used_at)
     values ($1, $2, $3, ${ago(expiredDaysAgo)}, ${used ? "now()" : "null"}) returning id`,
    [grantId, kind, randomUUID()],
  );
  return row.id;
}

async function request(clientId: number, expiresInSeconds: number) {
  const key = randomUUID();
  await sql(
    `insert into oauth_requests (key, client_id, redirect_uri, scope, code_challenge, resource, expires_at)
     values ($1, $2, 'http://127.0.0.1/cb', 'read', 'x', 'http://x/api/v1', now() + make_interval(secs => $3))`,
    [key, clientId, expiresInSeconds],
  );
  return key;
}

const exists = async (table: string, column: string, value: unknown) =>
  (await sql(`select 1 from ${table} where ${column} = $1`, [value])).length === 1;

describe("the cron pass's OAuth retention", () => {
  it("deletes expired requests, tokens a refresh lifetime past expiry, grants with no token left and unused clients; keeps the rest", {
    timeout: 120_000,
  }, async () => {
    const co = await newCompany();
    const { client: settings, user } = await signedIn(origin(), co.companyId);

    // A live grant through the real flow, refreshed once: its first refresh token is used.
    const { body: registered } = await register();
    const first = await tokensFor(settings, registered.client_id);
    const refreshed = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: registered.client_id,
    });
    expect(refreshed.status).toBe(200);
    const [live] = await sql<{ id: number; client_id: number }>("select id, client_id from oauth_grants where company_id = $1", [
      co.companyId,
    ]);
    // The used refresh token expired 29 days ago: still kept, so presenting it again still ends the grant.
    await sql(
      "update oauth_tokens set expires_at = now() - interval '29 days' where grant_id = $1 and kind = 'refresh' and used_at is not null",
      [live.id],
    );
    const liveOld = await token(live.id, "access", 31);

    const oldClient = await client("dcr", { createdDaysAgo: 40, granted: true });
    // Ended long ago: every token more than 30 days past expiry, the grant older than 30 days.
    const ended = await grant(co.companyId, user.id, oldClient, 70);
    const endedTokens = [await token(ended, "access", 40), await token(ended, "refresh", 31, true), await token(ended, "refresh", 31)];
    // Revoked 40 days ago, but one token expired only 20 days ago: kept with that token.
    const revoked = await grant(co.companyId, user.id, oldClient, 60);
    await sql("update oauth_grants set revoked_at = now() - interval '40 days' where id = $1", [revoked]);
    const revokedToken = await token(revoked, "refresh", 20, true);
    // A code never redeemed, 31 days ago (no tokens): deleted; one of today: kept.
    const unredeemed = await grant(co.companyId, user.id, oldClient, 31);
    const fresh = await grant(co.companyId, user.id, oldClient, 0);

    const expiredRequest = await request(live.client_id, -1);
    const pendingRequest = await request(live.client_id, 600);

    const abandoned = await client("dcr", { createdDaysAgo: 31 });
    const recent = await client("dcr", { createdDaysAgo: 29 });
    const grantedOnce = await client("dcr", { createdDaysAgo: 40, granted: true });
    const waiting = await client("dcr", { createdDaysAgo: 31 });
    await request(waiting, 600);
    const staleCopy = await client("cimd", { createdDaysAgo: 5, fetchedDaysAgo: 2 });
    const freshCopy = await client("cimd", { fetchedDaysAgo: 0 });
    const cimdInUse = await client("cimd", { createdDaysAgo: 5, fetchedDaysAgo: 2 });
    await grant(co.companyId, user.id, cimdInUse, 0);

    await worker.scheduled();

    expect(await exists("oauth_requests", "key", expiredRequest)).toBe(false);
    expect(await exists("oauth_requests", "key", pendingRequest)).toBe(true);

    expect(await exists("oauth_tokens", "id", liveOld)).toBe(false);
    for (const id of endedTokens) expect(await exists("oauth_tokens", "id", id)).toBe(false);
    expect(await exists("oauth_tokens", "id", revokedToken)).toBe(true);
    expect(await exists("oauth_grants", "id", ended)).toBe(false);
    expect(await sql("select 1 from oauth_codes where grant_id = $1", [ended])).toEqual([]);
    expect(await exists("oauth_grants", "id", unredeemed)).toBe(false);
    for (const id of [live.id, revoked, fresh]) expect(await exists("oauth_grants", "id", id)).toBe(true);
    // Both access tokens (live), the used refresh token (kept) and the live one.
    expect((await sql("select 1 from oauth_tokens where grant_id = $1", [live.id])).length).toBe(4);

    expect(await exists("oauth_clients", "id", abandoned)).toBe(false);
    expect(await exists("oauth_clients", "id", staleCopy)).toBe(false);
    for (const id of [oldClient, recent, grantedOnce, waiting, freshCopy, cimdInUse, live.client_id])
      expect(await exists("oauth_clients", "id", id)).toBe(true);

    // The live grant works after the purge, and its used refresh token is still recognised as a reuse.
    const reused = await tokenRequest({ grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: registered.client_id });
    expect(reused.body.error_description).toBe("The refresh token was already used; the grant is revoked");
    const [after] = await sql<{ revoked: boolean }>("select revoked_at is not null as revoked from oauth_grants where id = $1", [live.id]);
    expect(after.revoked).toBe(true);
  });

  it("clears a backlog larger than one statement's batch (5000 rows) in one pass", { timeout: 120_000 }, async () => {
    const co = await newCompany();
    const { user } = await signedIn(origin(), co.companyId);
    const grantId = await grant(co.companyId, user.id, await client("dcr", { granted: true }), 0);
    await sql(
      `insert into oauth_tokens (grant_id, kind, token_hash, expires_at)
       select $1, 'access', md5($2 || g), now() - interval '40 days' from generate_series(1, 12000) g`,
      [grantId, randomUUID()],
    );
    await worker.scheduled();
    expect(await sql("select 1 from oauth_tokens where grant_id = $1", [grantId])).toEqual([]);
  });
});
