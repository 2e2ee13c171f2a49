/**
 * PostgreSQL stopped, killed and restarted under concurrent writers on every write path, against the
 * Worker in workerd: what `npm run chaos` reports and `test/database-faults.test.ts` asserts (one run,
 * two readers). The writers: a single statement (POST /clients), PATCH /orders on one order from two
 * writers (their conflicts take the locked retry in a WebSocket transaction), order contents (POST
 * items on one order from two writers), and an idempotent POST /orders (the key's WebSocket
 * transaction); every change also goes to a webhook endpoint and, for orders, to the accounting system.
 * The faults, one after another: every PostgreSQL process stopped (SIGSTOP), backends killed (SIGKILL:
 * the server's crash recovery then ends every session), a clean restart (fast shutdown, nothing
 * listening, start-up), and the postmaster killed (restarted by the stack's supervisor).
 * Then: every answer counted, every acknowledged write looked for, no order without its invoice, and
 * every webhook and accounting delivery waited for.
 */
import { readFileSync } from "node:fs";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../src/db/schema";
import type { Db } from "../../src/platform/db";
import type { FakeQbo } from "../../test/fakes/qbo";
import type { WebhookReceiver } from "../../test/fakes/webhook-receiver";
import type { LocalPostgres } from "../local/postgres";
import { connectAccounting } from "../ops/accounting";
import { createCompany, createToken } from "../ops/commands";
import { postmasterPid, processTree, signalAll } from "./processes";

/** Worker settings for the run: deliveries retried within seconds, so the run can wait for them. */
export const DATABASE_FAULTS_WORKER_VARS = {
  RATE_LIMIT_BACKEND: "memory",
  // A crashing delivery's retries (10 at most, then the dead-letter queue) span more than the run's faults.
  WEBHOOK_RETRY_SCHEDULE: "2,4,8",
  WEBHOOK_DISABLE_MIN_FAILURES: "10000",
  ACCOUNTING_RETRY_BASE_SECONDS: "1",
} as const;

/** How long one request is waited for before it counts as unanswered. */
const ANSWER_DEADLINE_MS = 20_000;
/** How long deliveries are waited for once the database is back. */
const DELIVERY_DEADLINE_MS = 150_000;

type Writer = "single statement" | "PATCH /orders (locked retry)" | "order contents" | "idempotent POST /orders";

interface Answer {
  writer: Writer;
  status: number | "no answer";
  code?: string;
  retryAfter: boolean;
  ms: number;
  phase: string;
  at: string;
}

export interface DatabaseFaultsReport {
  phases: { name: string; ms: number }[];
  requests: number;
  /** writer → status → count */
  answers: Record<string, Record<string, number>>;
  /** Answers that break a promise: any 5xx but 503, a 503 without Retry-After, no answer; when sent, and how long they took. */
  broken: { writer: string; status: number | "no answer"; code?: string; phase: string; at: string; ms: number }[];
  acknowledged: Record<string, number>;
  /** Acknowledged writes not found afterwards (should be none). */
  lost: string[];
  /** Orders whose project has no default invoice, or invoices without their project. */
  halfWritten: number;
  /** Keys whose retry after the run found more than one order, or none. */
  keyedDuplicates: number;
  /**
   * Events written and deliveries to the endpoint: succeeded through the queues alone (of acknowledged
   * writes not: should be none), left for the cron pass (writes whose answer was lost), received by the
   * receiver, succeeded in the end and not.
   */
  webhooks: {
    events: number;
    deliveries: number;
    byQueues: number;
    ofAcknowledgedNotByQueues: number;
    leftToCron: number;
    leftByQueues: Record<string, unknown>[];
    delivered: number;
    succeeded: number;
    notSucceeded: number;
  };
  /** Outbox rows, the same way; QuickBooks invoices made. */
  accounting: {
    rows: number;
    byQueues: number;
    ofAcknowledgedNotByQueues: number;
    leftToCron: number;
    leftByQueues: Record<string, unknown>[];
    done: number;
    notDone: number;
    qboInvoices: number;
  };
  /** How long deliveries took once the database was back: through the queues, and with the cron pass. */
  deliveryMs: { byQueues: number; withCron: number };
  worstRecoveryMs: number;
  /** Writes that took their locked retry in a WebSocket transaction (from the Worker's log). */
  lockedRetries: number;
  /** The Worker's slowest requests (from its log): beside `broken`, where an unanswered request's time went. */
  slowestInWorker: Record<string, unknown>[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runDatabaseFaults(opts: {
  /** The Worker's API base (…/api/v1), started with DATABASE_FAULTS_WORKER_VARS on this stack's bindings. */
  api: string;
  postgres: LocalPostgres;
  dataDir: string;
  qbo: FakeQbo;
  receiver: WebhookReceiver;
  /** Runs the Worker's scheduled handler (the cron pass). */
  runCron: () => Promise<unknown>;
  /** The Worker's log: the run counts the writes that took the locked retry (a WebSocket transaction). */
  logFile?: string;
  /** Seconds of each calm stretch between faults (default 3). */
  calmSeconds?: number;
  log?: (line: string) => void;
}): Promise<DatabaseFaultsReport> {
  const log = opts.log ?? (() => {});
  const calm = (opts.calmSeconds ?? 3) * 1000;
  // The observer: arranges and checks over its own connections (never through the Worker); named, so its
  // backends are never the ones killed. It fails during faults like everything else, and is used between them.
  const observer = new pg.Pool({ connectionString: opts.postgres.url, max: 2, application_name: "faults-observer" });
  observer.on("error", () => {});
  observer.on("connect", (client) => client.on("error", () => {}));
  const db = drizzle(observer, { schema }) as unknown as Db;
  const query = async <T>(text: string, params: unknown[] = []) => (await observer.query(text, params)).rows as T[];
  try {
    const { company_id: companyId } = await createCompany(db, { name: `Faults Co ${Date.now()}`, accountingSync: true });
    const creds = opts.qbo.addRealm(`faults-${Date.now()}`);
    await connectAccounting(db, {
      companyId,
      realmId: creds.realm,
      clientId: creds.clientId,
      clientSecret: creds.clientSecret,
      refreshToken: creds.refreshToken,
      baseUrl: opts.qbo.url,
      tokenUrl: opts.qbo.tokenUrl,
    });
    // Many keys: the writers together make more requests than one key may per minute.
    const tokens = await Promise.all(Array.from({ length: 40 }, async () => (await createToken(db, { companyId })).token));
    let turn = 0;
    let phase = "warm-up";
    const answers: Answer[] = [];
    const send = async (
      writer: Writer | undefined,
      method: string,
      pathname: string,
      body: unknown,
      headers: Record<string, string> = {},
    ) => {
      const started = performance.now();
      const at = new Date().toISOString();
      try {
        const res = await fetch(`${opts.api}${pathname}`, {
          method,
          headers: { authorization: `Bearer ${tokens[turn++ % tokens.length]}`, "content-type": "application/json", ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
        });
        // biome-ignore lint/suspicious/noExplicitAny: the API's answers, read by field
        const json = (await res.json().catch(() => undefined)) as any;
        if (writer)
          answers.push({
            writer,
            status: res.status,
            code: json?.error?.code,
            retryAfter: res.headers.has("retry-after"),
            ms: performance.now() - started,
            phase,
            at,
          });
        return { status: res.status, json, replayed: res.headers.get("idempotent-replayed") === "true" };
      } catch {
        if (writer) answers.push({ writer, status: "no answer", retryAfter: false, ms: performance.now() - started, phase, at });
        return { status: 0, json: undefined, replayed: false };
      }
    };
    const must = async (method: string, pathname: string, body?: unknown) => {
      const res = await send(undefined, method, pathname, body);
      if (res.status !== 200) throw new Error(`${method} ${pathname}: ${res.status} ${JSON.stringify(res.json)}`);
      return res.json;
    };

    // Created clients and orders go to the endpoint (one delivery per resource, so deliveries run side by
    // side; updates of one resource would go one after another).
    const endpoint = await must("POST", "/webhook-endpoints", {
      url: opts.receiver.url("faults"),
      events: ["client.created", "order.created"],
    });
    const endpointId: number = endpoint.webhook_endpoint.id;
    const clientId: number = (await must("POST", "/clients", { company_name: "Faults client" })).client.id;
    // The PATCH writers and the contents writers each work on one order at a time, both writers on the
    // same one (so they conflict), moving on every few seconds: an invoice's accounting updates are
    // delivered one after another, so none gets too many.
    const newOrders = async (title: string) =>
      Promise.all(
        Array.from(
          { length: 12 },
          async (_, i) => (await must("POST", "/orders", { title: `${title} ${i}`, client_id: clientId })).project.id as number,
        ),
      );
    const patchedOrders = await newOrders("Patched order");
    const filledOrders = await newOrders("Filled order");
    const current = (orders: number[]) => orders[Math.floor(Date.now() / 4000) % orders.length];

    // What each writer was told was done.
    const acked = {
      clients: new Map<number, string>(),
      descriptions: new Set<string>(),
      items: new Set<number>(),
      keys: new Map<string, number>(),
    };
    const keysSent: string[] = [];
    let running = true;
    const loop = async (step: (i: number) => Promise<void>) => {
      for (let i = 0; running; i++) {
        await step(i);
        await sleep(100);
      }
    };
    const runTag = Date.now().toString(36);
    const writers = [
      loop(async (i) => {
        const name = `faults client ${runTag}-${i}`;
        const res = await send("single statement", "POST", "/clients", { company_name: name });
        if (res.status === 200) acked.clients.set(res.json.client.id, name);
      }),
      ...[0, 1].map((w) =>
        loop(async (i) => {
          const description = `patch ${runTag} w${w}-${i}`;
          const res = await send("PATCH /orders (locked retry)", "PATCH", `/orders/${current(patchedOrders)}`, { description });
          if (res.status === 200) acked.descriptions.add(description);
        }),
      ),
      ...[0, 1].map((w) =>
        loop(async (i) => {
          const res = await send("order contents", "POST", `/orders/${current(filledOrders)}/items`, {
            title: `item ${runTag} w${w}-${i}`,
            quantity: 1,
            unit_price: "1.00",
          });
          if (res.status === 200) acked.items.add(res.json.item.id);
        }),
      ),
      loop(async (i) => {
        const key = `faults-${runTag}-${i}`;
        keysSent.push(key);
        const res = await send(
          "idempotent POST /orders",
          "POST",
          "/orders",
          { title: `keyed ${key}`, client_id: clientId },
          { "idempotency-key": key },
        );
        if (res.status === 200) acked.keys.set(key, res.json.project.id);
      }),
    ];

    // The faults, each followed by a calm stretch; `recovered` is how long after each the first write succeeded.
    const phases: { name: string; ms: number }[] = [];
    let worstRecoveryMs = 0;
    const apiBack = async () => {
      const from = Date.now();
      while (Date.now() - from < 60_000) {
        if ((await send(undefined, "GET", `/orders/${patchedOrders[0]}`, undefined)).status === 200) break;
        await sleep(100);
      }
      worstRecoveryMs = Math.max(worstRecoveryMs, Date.now() - from);
    };
    const fault = async (name: string, act: () => Promise<void>) => {
      phase = name;
      const started = Date.now();
      log(`fault: ${name}`);
      await act();
      phases.push({ name, ms: Date.now() - started });
      await apiBack();
      phase = `after ${name}`;
      await sleep(calm);
    };
    /** One backend of the API's (not the observer's): killed with SIGKILL, PostgreSQL restarts every session. */
    const apiBackend = async () =>
      (
        await query<{ pid: number }>(
          `select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'
           and application_name <> 'faults-observer' order by random() limit 1`,
        ).catch(() => [])
      )[0]?.pid;

    await sleep(calm);
    await fault("every process stopped 6 s (SIGSTOP)", async () => {
      const tree = processTree(postmasterPid(opts.dataDir));
      signalAll(tree, "SIGSTOP");
      await sleep(6000);
      signalAll(tree, "SIGCONT");
    });
    for (let k = 1; k <= 3; k++) {
      await fault(`a backend killed (SIGKILL), ${k} of 3`, async () => {
        let pid: number | undefined;
        for (let tries = 0; pid === undefined && tries < 50; tries++) {
          pid = await apiBackend();
          if (pid === undefined) await sleep(50);
        }
        if (pid !== undefined) process.kill(pid, "SIGKILL");
      });
    }
    await fault("restarted: fast shutdown, 3 s down, start-up", () => opts.postgres.restart!(3000));
    await fault("the postmaster killed (SIGKILL), restarted by the stack", async () => {
      process.kill(postmasterPid(opts.dataDir), "SIGKILL");
      await sleep(500);
    });
    running = false;
    await Promise.all(writers);
    phase = "after the run";

    // Acknowledged writes, looked for. Each keyed order is asked for again with its key, as a client
    // retrying after a 503 would: every key must end with exactly one order.
    const lost: string[] = [];
    const clientRows = await query<{ id: number; company_name: string }>("select id, company_name from clients where company_id = $1", [
      companyId,
    ]);
    const clientNames = new Map(clientRows.map((r) => [r.id, r.company_name]));
    for (const [id, name] of acked.clients) if (clientNames.get(id) !== name) lost.push(`client ${id}`);
    const itemIds = new Set(
      (await query<{ id: number }>("select id from invoice_items where company_id = $1 and deleted_at is null", [companyId])).map(
        (r) => r.id,
      ),
    );
    for (const id of acked.items) if (!itemIds.has(id)) lost.push(`item ${id}`);
    const notes = new Set(
      (
        await query<{ note: string }>(
          "select payload->'changes'->>'private_note' as note from accounting_outbox where company_id = $1 and operation = 'update'",
          [companyId],
        )
      ).map((r) => r.note),
    );
    for (const d of acked.descriptions) if (!notes.has(d)) lost.push(`PATCH ${d}`);
    let keyedDuplicates = 0;
    for (const key of keysSent) {
      const again = await send(undefined, "POST", "/orders", { title: `keyed ${key}`, client_id: clientId }, { "idempotency-key": key });
      const ackedId = acked.keys.get(key);
      if (ackedId !== undefined && (again.status !== 200 || again.json.project.id !== ackedId || !again.replayed))
        lost.push(`keyed order ${key}`);
      const [{ n }] = await query<{ n: number }>("select count(*)::int as n from projects where company_id = $1 and title = $2", [
        companyId,
        `keyed ${key}`,
      ]);
      if (n !== 1) keyedDuplicates++;
    }
    const [{ n: halfWritten }] = await query<{ n: number }>(
      `select ((select count(*) from projects p where p.company_id = $1
                 and not exists (select 1 from invoices i where i.project_id = p.id and i.is_default))
            + (select count(*) from invoices i where i.company_id = $1
                 and not exists (select 1 from projects p where p.id = i.project_id)))::int as n`,
      [companyId],
    );

    // Deliveries, waited for. Those of acknowledged writes go out through the queues by themselves, retried
    // while the database was away. A write whose answer was lost but which committed (a 503 at the deadline,
    // the statement run once PostgreSQL resumed) was never handed to a queue: the cron pass sends what waited
    // 5 minutes. Once the queues are done, the run moves those hand-offs 5 minutes back and runs the cron pass.
    const ackedClients = [...acked.clients.keys()].map(String);
    const ackedOrders = [...acked.keys.values()].map(String);
    const state = async () => {
      const [row] = await query<{
        events: number;
        succeeded: number;
        left: number;
        held: number;
        acked_left: number;
        rows: number;
        done: number;
        acked_not_done: number;
        backing_off: number;
      }>(
        `select (select count(*) from webhook_events where company_id = $1)::int as events,
                count(*) filter (where d.status = 'succeeded')::int as succeeded,
                count(*) filter (where d.status <> 'succeeded')::int as left,
                count(*) filter (where d.status = 'pending'
                  and (d.claimed_until > now() or d.next_attempt_at > now() or d.enqueued_at > now()))::int as held,
                count(*) filter (where d.status <> 'succeeded' and e.resource_id = any(case e.resource_type when 'client' then $3::text[] else $4::text[] end))::int as acked_left,
                (select count(*) from accounting_outbox where company_id = $1)::int as rows,
                (select count(*) from accounting_outbox where company_id = $1 and status = 'done')::int as done,
                (select count(*) from accounting_outbox where company_id = $1 and status <> 'done' and enqueued_at > now())::int as backing_off,
                (select count(*) from accounting_outbox where company_id = $1 and status <> 'done'
                   and (project_id = any($4::int[]) or payload->'changes'->>'private_note' = any($5::text[])))::int as acked_not_done
         from webhook_deliveries d join webhook_events e on e.id = d.event_id where d.endpoint_id = $2`,
        [companyId, endpointId, ackedClients, ackedOrders, [...acked.descriptions]],
      );
      return row;
    };
    const settle = async (deadlineMs: number) => {
      const from = Date.now();
      let last = await state();
      let still = Date.now();
      while (Date.now() - from < deadlineMs && (last.left > 0 || last.done < last.rows)) {
        await sleep(1000);
        const now = await state();
        // Something moved, or waits for its time (a claim to lapse, a retry to come due; its message
        // comes a moment after): the queues are still at work.
        if (now.succeeded !== last.succeeded || now.done !== last.done || now.held > 0 || now.backing_off > 0) still = Date.now();
        last = now;
        // Nothing for 20 s: what is left waits for the cron pass.
        if (Date.now() - still > 20_000) break;
      }
      return last;
    };
    const deliveryStart = Date.now();
    const byQueues = await settle(DELIVERY_DEADLINE_MS);
    const queuesMs = Date.now() - deliveryStart;
    const booksLeftByQueues = await query<Record<string, unknown>>(
      `select operation, project_id, status, attempts, enqueued_at > now() as later, last_error from accounting_outbox
       where company_id = $1 and status <> 'done' order by id limit 10`,
      [companyId],
    );
    const leftByQueues = await query<Record<string, unknown>>(
      `select d.id, e.type, e.resource_id, d.status, d.attempts, d.claimed_until > now() as claimed, d.next_attempt_at > now() as later, d.last_error
       from webhook_deliveries d join webhook_events e on e.id = d.event_id where d.endpoint_id = $1 and d.status <> 'succeeded' limit 10`,
      [endpointId],
    );
    await query(
      `update webhook_deliveries set enqueued_at = now() - interval '6 minutes'
       where endpoint_id = $1 and status = 'pending' and (claimed_until is null or claimed_until < now())`,
      [endpointId],
    );
    await query("update accounting_outbox set enqueued_at = now() - interval '6 minutes' where company_id = $1 and status <> 'done'", [
      companyId,
    ]);
    await opts.runCron();
    const final = await settle(DELIVERY_DEADLINE_MS);
    const waitedMs = Date.now() - deliveryStart;
    const deliveredIds = new Set(opts.receiver.received("faults").map((r) => r.headers["webhook-id"]));
    const eventIds = await query<{ event_id: string }>(
      "select e.event_id from webhook_deliveries d join webhook_events e on e.id = d.event_id where d.endpoint_id = $1",
      [endpointId],
    );

    const workerLog = opts.logFile ? readFileSync(opts.logFile, "utf8").split("\n") : [];
    const byWriter: Record<string, Record<string, number>> = {};
    for (const a of answers) {
      byWriter[a.writer] ??= {};
      byWriter[a.writer][a.status] = (byWriter[a.writer][a.status] ?? 0) + 1;
    }
    return {
      phases,
      requests: answers.length,
      answers: byWriter,
      broken: answers
        .filter((a) => a.status === "no answer" || (a.status >= 500 && a.status !== 503) || (a.status === 503 && !a.retryAfter))
        .map(({ writer, status, code, phase: p, at, ms }) => ({ writer, status, code, phase: p, at, ms: Math.round(ms) })),
      acknowledged: {
        clients: acked.clients.size,
        "PATCH /orders": acked.descriptions.size,
        items: acked.items.size,
        "keyed orders": acked.keys.size,
      },
      lost,
      halfWritten,
      keyedDuplicates,
      webhooks: {
        events: final.events,
        deliveries: final.succeeded + final.left,
        byQueues: byQueues.succeeded,
        ofAcknowledgedNotByQueues: byQueues.acked_left,
        leftToCron: byQueues.left,
        leftByQueues,
        delivered: eventIds.filter((e) => deliveredIds.has(e.event_id)).length,
        succeeded: final.succeeded,
        notSucceeded: final.left,
      },
      accounting: {
        rows: final.rows,
        byQueues: byQueues.done,
        ofAcknowledgedNotByQueues: byQueues.acked_not_done,
        leftToCron: byQueues.rows - byQueues.done,
        leftByQueues: booksLeftByQueues,
        done: final.done,
        notDone: final.rows - final.done,
        qboInvoices: opts.qbo.invoices(creds.realm).length,
      },
      deliveryMs: { byQueues: queuesMs, withCron: waitedMs },
      worstRecoveryMs,
      lockedRetries: workerLog.filter((l) => l.includes('"order changed between read and write')).length,
      slowestInWorker: workerLog
        .filter((l) => l.includes('"msg":"request"'))
        .map((l) => JSON.parse(l) as { duration_ms: number })
        .sort((a, b) => b.duration_ms - a.duration_ms)
        .slice(0, 5),
    };
  } finally {
    await observer.end();
  }
}
