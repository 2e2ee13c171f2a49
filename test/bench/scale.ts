/**
 * Scale benchmark: `npm run bench:scale [-- --n 100000] [--runs 15] [--dir <dir>] [--shared-buffers 1GB]
 * [--writes-before <migration tag>] [--only <pattern>]`.
 *
 * Seeds the local stack through SQL to N rows per table for one company and N/100 for another (kept in
 * <dir>, by default .bench-scale/<N>/, and reused by later runs: delete it to seed again), runs the real
 * Worker bundle in workerd, times every endpoint for both companies interleaved, and prints per endpoint
 * the p50 of each, their ratio, the goal and the verdict. Then runs each endpoint once more for the big
 * company under auto_explain and writes the plans of its statements to docs/scale-plans.txt (with
 * N = 1,000,000, the default, and no --dir; <dir>/plans.txt otherwise).
 *
 * --writes-before <tag>: also times the client writes for the big company against a
 * second database seeded the same way and migrated with every migration but <tag> (kept in
 * <dir>/before-<tag>/), interleaved in the same run: what that migration costs writes. Meant for a
 * migration of indexes and triggers: today's Worker writes the columns of every migration.
 *
 * --only <pattern>: times only the endpoints whose name matches the regular expression (case-insensitive),
 * on the same seeded data; their plans go to <dir>/plans.txt, never to docs/scale-plans.txt. A pattern that
 * matches "request logs" runs that section alone.
 *
 * Then the section "request logs" (test/bench/request-logs-scale.ts): a company with --request-logs entries
 * (default 10,000,000) beside one with --request-logs-small (default 100,000), on a PostgreSQL of its own
 * (kept in <dir>/request-logs/, by default .bench-request-logs/<n>/); --request-logs 0 skips it.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import * as schema from "../../src/db/schema";
import { type CursorScope, encodeCursor } from "../../src/http/pagination";
import type { Db } from "../../src/platform/db";
import { type Carried, updatedSort } from "../../src/platform/incremental-sync";
import type { KeysetSort } from "../../src/platform/keyset";
import { CLIENTS_SORT } from "../../src/routes/clients/list";
import { ORDER_LIST_SORTS, ORDERS_SORT } from "../../src/routes/orders/list";
import { type Stack, startStack } from "../../tools/local/stack";
import { createToken } from "../../tools/ops/commands";
import { projectRoot } from "../../tools/ops/config";
import { buildWorker, startWorker } from "../support/worker";
import { REQUEST_LOGS_SECTION, requestLogsDir, timeRequestLogs } from "./request-logs-scale";
import { SEED_TERMS, seedCompany } from "./scale-seed";

const { values: args } = parseArgs({
  options: {
    n: { type: "string", default: "1000000" },
    runs: { type: "string", default: "15" },
    dir: { type: "string" },
    "shared-buffers": { type: "string", default: "1GB" },
    "writes-before": { type: "string" },
    only: { type: "string" },
    "request-logs": { type: "string", default: "10000000" },
    "request-logs-small": { type: "string", default: "100000" },
  },
});
const N = Number(args.n);
const RUNS = Number(args.runs);
if (!Number.isInteger(N) || N < 1000) throw new Error("--n must be a whole number of at least 1000");
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error("--runs must be a whole number of at least 1");
const SHARED_BUFFERS = args["shared-buffers"];
const ONLY = args.only === undefined ? undefined : new RegExp(args.only, "i");
const dataDir = path.resolve(args.dir ?? path.join(projectRoot, ".bench-scale", String(N)));
const REQUEST_LOGS = Number(args["request-logs"]);
/** Which sections run: --only naming the request logs runs that one alone; another --only, the endpoints alone. */
const onlyRequestLogs = ONLY?.test(REQUEST_LOGS_SECTION) ?? false;
const runEndpoints = !onlyRequestLogs;
const runRequestLogs = REQUEST_LOGS > 0 && (!ONLY || onlyRequestLogs);

/** A goal: at most `ratio` × the small company's time (or the baseline's), or a note why there is none. */
type Goal = { ratio: number } | { note: string };

interface Endpoint {
  name: string;
  goal: Goal;
  path: string;
  method?: "POST" | "PATCH" | "PUT";
  /** The body of a write, per run (a PATCH that changes the searchable text each time). */
  body?: (run: number) => unknown;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const EPOCH = "1970-01-01T00:00:00Z";
const within = (ratio: number): Goal => ({ ratio });

/** The endpoints to time for one company, with ids and cursors taken from its own data. */
async function endpointsFor(client: pg.Client, companyId: number, hitFirst: (path: string) => Promise<any>): Promise<Endpoint[]> {
  const one = async <T>(text: string, params: unknown[]) => (await client.query(text, params)).rows[0] as T;
  const live = Number(
    (await one<{ n: string }>("select count(*) n from clients where company_id = $1 and deleted_at is null", [companyId])).n,
  );
  const deep = Math.floor(live * 0.95);
  const key = (cols: string) => `array[${cols}]`;
  const micros = (col: string) => `((extract(epoch from ${col}) * 1000000)::bigint)::text`;
  const deepClient = await one<{ key: string[] }>(
    `select ${key("id::text")} key from clients where company_id = $1 and deleted_at is null order by id offset $2 limit 1`,
    [companyId, deep],
  );
  const orders = Number(
    (await one<{ n: string }>("select count(*) n from projects where company_id = $1 and deleted_at is null", [companyId])).n,
  );
  const deepOrder = await one<{ key: string[] }>(
    `select ${key(`${micros("created_at")}, id::text`)} key from projects
     where company_id = $1 and deleted_at is null order by created_at desc, id desc offset $2 limit 1`,
    [companyId, Math.floor(orders * 0.95)],
  );
  const busyClient = await one<{ client_id: number }>(
    "select client_id from projects where company_id = $1 and deleted_at is null order by id desc limit 1",
    [companyId],
  );
  const status = await one<{ id: number }>("select id from order_statuses where company_id = $1 order by position offset 3 limit 1", [
    companyId,
  ]);
  const sample = await one<{ client_id: number; email: string; order_id: number; line_id: number }>(
    `select c.id client_id, c.email, p.id order_id, i.id line_id
     from clients c join projects p on p.client_id = c.id join invoices v on v.project_id = p.id join invoice_items i on i.invoice_id = v.id
     where c.company_id = $1 and c.deleted_at is null and p.deleted_at is null and i.deleted_at is null
     order by c.id desc limit 1`,
    [companyId],
  );
  // The day before the newest change: an incremental sync of about n / 1,100 rows.
  const yesterday = (
    await one<{ since: Date }>("select max(updated_at) - interval '1 day' since from clients where company_id = $1", [companyId])
  ).since.toISOString();
  const cursor = (sort: KeysetSort, filters: CursorScope["filters"], k: (string | null)[], carried?: Carried) =>
    encodeURIComponent(encodeCursor(sort, { companyId, filters }, k, 2, carried));
  const orderFilters = { client_id: null, status: null, from: null, to: null, updated_since: null, include_deleted: false };
  /** A sync pass's page at 95 %: its key, with the total and watermark its first page carries. */
  const syncCursor = async (list: "clients" | "orders", table: string) => {
    const first = await hitFirst(`/${list}?updated_since=${EPOCH}`);
    const carried = { total: first.pagination.total, watermark: Date.parse(first.pagination.next_updated_since) };
    const at = await one<{ key: string[] }>(
      `select ${key(`${micros("updated_at")}, id::text`)} key from ${table}
       where company_id = $1 and deleted_at is null and updated_at < $2 order by updated_at, id offset $3 limit 1`,
      [companyId, first.pagination.next_updated_since, Math.floor(carried.total * 0.95)],
    );
    const filters = { ...(list === "clients" ? { q: null } : orderFilters), updated_since: EPOCH, include_deleted: false };
    const sort =
      list === "clients"
        ? updatedSort(schema.clients.updatedAt, schema.clients.id)
        : updatedSort(schema.projects.updatedAt, schema.projects.id);
    return cursor(sort, filters, at.key, carried);
  };
  // 95 % into the deadline order: among the orders without a deadline, which come last.
  const deepDeadline = await one<{ key: (string | null)[] }>(
    `select array[(deadline - '1970-01-01'::date)::text, id::text] key from projects
     where company_id = $1 and deleted_at is null order by coalesce(deadline, 'infinity'::date), id offset $2 limit 1`,
    [companyId, Math.floor(orders * 0.95)],
  );
  const statuses = (
    await client.query<{ id: number }>("select id from order_statuses where company_id = $1 order by position", [companyId])
  ).rows;
  // A month of orders, a year back from the newest (the seed spreads n orders over three years).
  const month = {
    from: new Date(Date.now() - 365 * 864e5).toISOString().slice(0, 10),
    to: new Date(Date.now() - 335 * 864e5).toISOString().slice(0, 10),
  };
  const pages = Math.floor(deep / 50) + 1;
  const offsetNote = { note: "OFFSET walks every earlier row" };
  const t = SEED_TERMS;
  return [
    { name: "clients page 1", goal: within(2), path: "/clients" },
    {
      name: "clients by cursor at 95 %",
      goal: within(2),
      path: `/clients?per_page=50&cursor=${cursor(CLIENTS_SORT, { q: null, updated_since: null, include_deleted: false }, deepClient.key)}`,
    },
    { name: "clients page at 95 % (offset)", goal: offsetNote, path: `/clients?per_page=50&page=${pages}` },
    { name: `clients q=${t.oneChar} (1 char, in 99 %)`, goal: within(2), path: `/clients?q=${t.oneChar}` },
    { name: `clients q=${t.twoChars} (2 chars, in 41 %)`, goal: within(2), path: `/clients?q=${t.twoChars}` },
    { name: `clients q=${t.surname} (2-letter surname, 3 %)`, goal: within(2), path: `/clients?q=${t.surname}` },
    { name: `clients q=${t.rareSurname} (2-letter surname, rare)`, goal: within(2), path: `/clients?q=${t.rareSurname}` },
    { name: `clients q=${t.twoCharsNone} (2 chars, none)`, goal: within(2), path: `/clients?q=${t.twoCharsNone}` },
    { name: `clients q=${t.rareClient} (rare)`, goal: within(2), path: `/clients?q=${t.rareClient}` },
    { name: `clients q=${t.phone} (phone fragment)`, goal: within(2), path: `/clients?q=${t.phone}` },
    { name: `clients q=${t.noClient} (none, common 3-grams)`, goal: within(2), path: `/clients?q=${t.noClient}` },
    { name: `clients q=${t.sameCountClient} (300 in each)`, goal: within(2), path: `/clients?q=${t.sameCountClient}` },
    {
      name: `clients q=${t.commonClient} (3.3 %)`,
      goal: { note: `exact total reads each match: see q=${t.sameCountClient}` },
      path: `/clients?q=${t.commonClient}`,
    },
    { name: "clients sync, first page", goal: within(2), path: `/clients?updated_since=${EPOCH}` },
    { name: "clients sync with tombstones, first page", goal: within(2), path: `/clients?updated_since=${EPOCH}&include_deleted=true` },
    {
      name: "clients sync by cursor at 95 %",
      goal: within(2),
      path: `/clients?updated_since=${EPOCH}&cursor=${await syncCursor("clients", "clients")}`,
    },
    { name: "clients sync of the last day", goal: within(2), path: `/clients?updated_since=${encodeURIComponent(yesterday)}` },
    { name: "orders page 1", goal: within(2), path: "/orders" },
    { name: "orders ?client_id", goal: within(2), path: `/orders?client_id=${busyClient.client_id}` },
    { name: "orders ?status", goal: within(2), path: `/orders?status=${status.id}` },
    { name: "orders ?from&to (a month)", goal: within(2), path: `/orders?from=${month.from}&to=${month.to}` },
    { name: "orders ?status=a,b (two)", goal: within(2), path: `/orders?status=${statuses[1].id},${statuses[4].id}` },
    { name: "orders ?payment_status=partial", goal: within(2), path: "/orders?payment_status=partial" },
    { name: "orders ?payment_status=paid", goal: within(2), path: "/orders?payment_status=paid" },
    { name: "orders ?deadline_from&to (a month)", goal: within(2), path: `/orders?deadline_from=${month.from}&deadline_to=${month.to}` },
    { name: "orders ?sort=created_at", goal: within(2), path: "/orders?sort=created_at" },
    { name: "orders ?sort=deadline", goal: within(2), path: "/orders?sort=deadline" },
    { name: "orders ?sort=-deadline", goal: within(2), path: "/orders?sort=-deadline" },
    { name: "orders ?sort=-updated_at", goal: within(2), path: "/orders?sort=-updated_at" },
    {
      name: "orders ?sort=deadline by cursor at 95 %",
      goal: within(2),
      path: `/orders?sort=deadline&per_page=50&cursor=${cursor(ORDER_LIST_SORTS.deadline, orderFilters, deepDeadline.key)}`,
    },
    {
      name: "orders by cursor at 95 %",
      goal: within(2),
      path: `/orders?per_page=50&cursor=${cursor(ORDERS_SORT, orderFilters, deepOrder.key)}`,
    },
    { name: "orders page at 95 % (offset)", goal: offsetNote, path: `/orders?per_page=50&page=${pages}` },
    { name: "orders sync, first page", goal: within(2), path: `/orders?updated_since=${EPOCH}` },
    {
      name: "orders sync by cursor at 95 %",
      goal: within(2),
      path: `/orders?updated_since=${EPOCH}&cursor=${await syncCursor("orders", "projects")}`,
    },
    // One row per band of how many invoice lines hold the term: the page's cost should not follow it.
    ...[
      [t.commonProduct, "20 %"],
      [t.fewProduct, "3 %"],
      [t.oneInHundredProduct, "1 %"],
      [t.crossoverProduct, "0.3 %"],
      [t.rareProduct, "0.1 %"],
    ].map(([q, share]) => ({
      name: `search q=${q} (in ${share} of lines)`,
      goal: within(2),
      path: `/products/search?include=local,lines&q=${q}`,
    })),
    { name: "client by id", goal: within(2), path: `/clients/${sample.client_id}` },
    { name: "client by email", goal: within(2), path: `/clients/_?email=${encodeURIComponent(sample.email)}` },
    { name: "order by id", goal: within(2), path: `/orders/${sample.order_id}` },
    { name: "invoice line by id", goal: within(2), path: `/products/invoice_item?id=${sample.line_id}` },
    ...writesFor(await writeTarget(client, companyId)),
    ...orderWritesFor(await orderWriteTarget(client, companyId)),
  ];
}

/** The name of every client the timed writes create: they are deleted when the run ends. */
const WRITTEN = "Bench write";

/** The timed order writes: a rename by id and by external id (as an integration's sync sends them). */
const orderWritesFor = (target: { id: number; clientId: number; externalId: string }): Endpoint[] => [
  {
    name: "PATCH /orders/{id}",
    goal: within(2),
    path: `/orders/${target.id}`,
    method: "PATCH",
    body: (run) => ({ title: `${WRITTEN} ${run}` }),
  },
  {
    name: "PUT /orders/by-external-id/{external_id}",
    goal: within(2),
    path: `/orders/by-external-id/${target.externalId}`,
    method: "PUT",
    body: (run) => ({ client_id: target.clientId, title: `${WRITTEN} ${run}, upserted` }),
  },
];

/** A client of the company for the timed PATCH and PUT (an external id of its own: a company may get two). */
const writeTarget = async (client: pg.Client, companyId: number) => {
  const externalId = `bench-written-${crypto.randomUUID()}`;
  const { rows } = await client.query<{ id: number }>(
    "insert into clients (company_id, company_name, external_id) values ($1, $2, $3) returning id",
    [companyId, WRITTEN, externalId],
  );
  return { id: rows[0].id, externalId };
};

/** The orders the timed order writes change, with their titles before. */
const ordersWritten: { client: pg.Client; id: number; title: string }[] = [];

/** A live order of the company for the timed order writes, given an external id (put back when the run ends). */
const orderWriteTarget = async (client: pg.Client, companyId: number) => {
  const externalId = `bench-written-${crypto.randomUUID()}`;
  const { rows } = await client.query<{ id: number; client_id: number; title: string }>(
    `update projects p set external_id = $2
       from (select id, title from projects where company_id = $1 and deleted_at is null order by id limit 1) o
      where p.id = o.id returning p.id, p.client_id, o.title`,
    [companyId, externalId],
  );
  ordersWritten.push({ client, id: rows[0].id, title: rows[0].title });
  return { id: rows[0].id, clientId: rows[0].client_id, externalId };
};

/** Takes out what the timed writes added and puts the orders back, so that every run starts from the seeded data. */
const removeWrites = async (client: pg.Client) => {
  await client.query("delete from clients where company_name like $1", [`${WRITTEN}%`]);
  for (const order of ordersWritten.filter((o) => o.client === client))
    await client.query("update projects set external_id = null, title = $2 where id = $1", [order.id, order.title]);
};

/** The timed writes: a new client, and a rename (which changes the searchable text) of one, by id and by external id. */
const writesFor = (target: { id: number; externalId: string }): Endpoint[] => [
  {
    name: "POST /clients",
    goal: within(2),
    path: "/clients",
    method: "POST",
    body: (run) => ({ company_name: `${WRITTEN} ${run}`, email: `bench${run}@example.com`, phone: "(555) 010-0000" }),
  },
  {
    name: "PATCH /clients/{id}",
    goal: within(2),
    path: `/clients/${target.id}`,
    method: "PATCH",
    body: (run) => ({ company_name: `${WRITTEN} ${run}, renamed` }),
  },
  {
    name: "PUT /clients/by-external-id/{external_id}",
    goal: within(2),
    path: `/clients/by-external-id/${target.externalId}`,
    method: "PUT",
    body: (run) => ({ company_name: `${WRITTEN} ${run}, upserted` }),
  },
];

/** A seeded stack: PostgreSQL with the memory a database of this size would have, the companies, the Worker. */
async function openStack(dir: string, migrations: string) {
  let pgLog = "";
  const start = () =>
    startStack({
      dataDir: path.join(dir, "postgres"),
      redis: "required",
      log: (line) => {
        pgLog += `${line}\n`;
      },
    });
  let stack: Stack = await start();
  // The default 128 MB would measure the operating system's page cache more than the queries.
  const admin = new pg.Client({ connectionString: stack.postgres!.url });
  await admin.connect();
  const { rows } = await admin.query("show shared_buffers");
  await admin.query(`alter system set shared_buffers = '${SHARED_BUFFERS}'`);
  await admin.end();
  if (rows[0].shared_buffers !== SHARED_BUFFERS) {
    await stack.stop();
    stack = await start();
  }
  const client = new pg.Client({ connectionString: stack.postgres!.url });
  await client.connect();
  await migrate(drizzle(client), { migrationsFolder: migrations });
  const names = { big: `Scale big (${N})`, small: `Scale small (${N / 100})` };
  const findCompany = async (name: string) =>
    (await client.query<{ id: number }>("select id from companies where name = $1", [name])).rows[0]?.id;
  let big = await findCompany(names.big);
  let small = await findCompany(names.small);
  if (!big || !small) {
    const started = Date.now();
    console.log(`seeding ${N} rows per table (and ${N / 100}) into ${dir} …`);
    big ??= await seedCompany(client, names.big, N, console.log);
    small ??= await seedCompany(client, names.small, N / 100, console.log);
    await client.query("vacuum analyze");
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } else {
    // Statistics for indexes a newer migration added (expression indexes have their own).
    await client.query("analyze");
  }
  mkdirSync(path.join(dir, "worker"), { recursive: true });
  const worker = await startWorker({
    script: buildWorker(path.join(dir, "worker")),
    bindings: stack.vars,
    logFile: path.join(dir, "worker.log"),
  });
  const db = drizzle(client, { schema }) as unknown as Db;
  const tokens = new Map<string, string>();
  /** One token per endpoint and company: the runs stay under the per-key rate limit. */
  const token = async (key: string, companyId: number) => {
    if (!tokens.has(key)) tokens.set(key, (await createToken(db, { companyId })).token);
    return tokens.get(key)!;
  };
  const hit = async (label: string, companyId: number, ep: Endpoint, run = 0) => {
    const started = performance.now();
    const res = await fetch(`${worker.url}/api/v1${ep.path}`, {
      method: ep.method ?? "GET",
      headers: { authorization: `Bearer ${await token(`${label}:${ep.name}`, companyId)}`, "content-type": "application/json" },
      body: ep.body ? JSON.stringify(ep.body(run)) : undefined,
    });
    const body = await res.text();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`${label} ${ep.name}: ${res.status} ${body.slice(0, 300)}`);
    return { ms, body: JSON.parse(body) };
  };
  return {
    stack,
    client,
    worker,
    big,
    small,
    hit,
    takeLog: () => {
      const log = pgLog;
      pgLog = "";
      return log;
    },
    async close() {
      await client.end().catch(() => {});
      await worker.dispose();
      await stack.stop();
    },
  };
}

/**
 * drizzle/ with migration `tag` left out of its journal: the schema without it. The migrations after it
 * stay, since the Worker measured is today's and writes their columns.
 */
function migrationsBefore(tag: string) {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-migrations-"));
  cpSync(path.join(projectRoot, "drizzle"), dir, { recursive: true });
  const journalFile = path.join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  if (at < 0) throw new Error(`--writes-before: no migration ${tag} in drizzle/meta/_journal.json`);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.filter((_, i) => i !== at) }));
  return dir;
}

/** The section of the endpoints: the seeded companies through the Worker, the writes against --writes-before, the plans. */
async function timeEndpoints() {
  mkdirSync(dataDir, { recursive: true });
  const main = await openStack(dataDir, path.join(projectRoot, "drizzle"));
  let before: Awaited<ReturnType<typeof openStack>> | undefined;
  let beforeMigrations: string | undefined;
  try {
    if (args["writes-before"]) {
      beforeMigrations = migrationsBefore(args["writes-before"]);
      before = await openStack(path.join(dataDir, `before-${args["writes-before"]}`), beforeMigrations);
    }
    const companies = [
      { label: "big", id: main.big },
      { label: "small", id: main.small },
    ];
    const endpoints = new Map<string, Endpoint[]>();
    for (const co of companies) {
      const first = async (p: string) => (await main.hit(co.label, co.id, { name: "setup", goal: within(1), path: p })).body;
      endpoints.set(
        co.label,
        (await endpointsFor(main.client, co.id, first)).filter((ep) => !ONLY || ONLY.test(ep.name)),
      );
    }
    const list = endpoints.get("big")!;
    if (!list.length) throw new Error(`--only ${args.only}: no endpoint's name matches`);

    const times = new Map<string, number[]>();
    const totals = new Map<string, number>();
    const record = (key: string, ms: number) => times.set(key, [...(times.get(key) ?? []), ms]);
    for (let run = 0; run < RUNS + 2; run++) {
      for (let e = 0; e < list.length; e++) {
        // Interleaved, alternating which company goes first.
        for (const co of run % 2 ? companies : [...companies].reverse()) {
          const { ms, body } = await main.hit(co.label, co.id, endpoints.get(co.label)![e], run);
          if (body.pagination) totals.set(`${co.label}:${e}`, body.pagination.total);
          if (run >= 2) record(`${co.label}:${e}`, ms);
        }
      }
    }
    // The writes against the database before the migration, interleaved with the same writes here.
    const beforeRows: { name: string; now: number; before: number }[] = [];
    if (before) {
      const nowWrites = writesFor(await writeTarget(main.client, main.big));
      const thenWrites = writesFor(await writeTarget(before.client, before.big));
      for (const [w, ep] of nowWrites.entries()) {
        const now: number[] = [];
        const then: number[] = [];
        for (let run = 0; run < RUNS + 2; run++) {
          const order = run % 2 ? [0, 1] : [1, 0];
          for (const which of order) {
            const { ms } =
              which === 0
                ? await main.hit("big", main.big, ep, 1000 + run)
                : await before.hit("big", before.big, thenWrites[w], 1000 + run);
            if (run >= 2) (which === 0 ? now : then).push(ms);
          }
        }
        beforeRows.push({ name: `${ep.name} vs before ${args["writes-before"]}`, now: median(now), before: median(then) });
      }
    }

    const cpu = cpus()[0]?.model.trim();
    const version = (await main.client.query("show server_version")).rows[0].server_version;
    const machine = `${cpus().length} × ${cpu}, local stack (embedded PostgreSQL ${version}, shared_buffers ${SHARED_BUFFERS}, workerd)`;
    const verdict = (goal: Goal, ratio: number) =>
      "ratio" in goal ? `≤ ${goal.ratio}× ${ratio <= goal.ratio ? "ok" : "MISSED"}` : goal.note;
    const count = (key: string) => (totals.has(key) ? totals.get(key)!.toLocaleString("en") : "");
    const lines = [
      `bench:scale ${new Date().toISOString().slice(0, 10)}, N = ${N} (big) vs ${N / 100} (small), p50 of ${RUNS} interleaved runs, ${machine}`,
      "",
      `| endpoint | ${N.toLocaleString("en")} | ${(N / 100).toLocaleString("en")} | ratio | goal | total (big / small) |`,
      "|---|---:|---:|---:|---|---:|",
    ];
    for (const [e, ep] of list.entries()) {
      const b = median(times.get(`big:${e}`)!);
      const s = median(times.get(`small:${e}`)!);
      const totalsCell = totals.has(`big:${e}`) ? `${count(`big:${e}`)} / ${count(`small:${e}`)}` : "";
      lines.push(
        `| ${ep.name} | ${b.toFixed(1)} ms | ${s.toFixed(1)} ms | ${(b / s).toFixed(2)}× | ${verdict(ep.goal, b / s)} | ${totalsCell} |`,
      );
    }
    if (beforeRows.length) {
      lines.push(
        "",
        `| write, ${N.toLocaleString("en")} company | now | before ${args["writes-before"]} | ratio | goal |`,
        "|---|---:|---:|---:|---|",
      );
      for (const r of beforeRows) {
        lines.push(
          `| ${r.name} | ${r.now.toFixed(1)} ms | ${r.before.toFixed(1)} ms | ${(r.now / r.before).toFixed(2)}× | ${verdict({ ratio: 1.5 }, r.now / r.before)} |`,
        );
      }
    }
    console.log(lines.join("\n"));

    // Plans: auto_explain on every statement of one more request per endpoint (big company). Settings of
    // a database apply to new sessions: the local endpoint's pooled sessions are ended so it opens new ones.
    await main.client.query("alter database crm set session_preload_libraries = 'auto_explain'");
    for (const setting of ["log_min_duration = 0", "log_analyze = on", "log_buffers = on", "log_timing = on"]) {
      await main.client.query(`alter database crm set auto_explain.${setting}`);
    }
    const endSessions = async () => {
      await main.client.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = 'crm' and pid <> pg_backend_pid()");
      await new Promise((r) => setTimeout(r, 1000)); // the pool sees its sessions close
    };
    await endSessions();
    const plans: string[] = [`EXPLAIN ANALYZE (auto_explain) of each endpoint's statements for the ${N}-row company; ${lines[0]}`, ""];
    try {
      for (const ep of list) {
        main.takeLog();
        const { ms } = await main.hit("big", main.big, ep, RUNS + 2);
        await new Promise((r) => setTimeout(r, 300)); // the server's log lines arrive on their own
        const statements = main
          .takeLog()
          .split(/(?=LOG:\s+duration:)/)
          .filter((p) => p.includes("Query Text:") && !p.includes("api_tokens"))
          .map((p) => p.replace(/^.*?LOG:\s+/s, "").trimEnd());
        if (!statements.length) throw new Error(`no plan was logged for ${ep.name}`);
        plans.push(
          `=== ${ep.name}: ${ep.method ?? "GET"} ${ep.path.slice(0, 120)} (${ms.toFixed(0)} ms with auto_explain)`,
          ...statements,
          "",
        );
      }
    } finally {
      await main.client.query("alter database crm reset all");
      await endSessions();
    }
    const plansFile =
      N === 1_000_000 && !args.dir && !ONLY ? path.join(projectRoot, "docs/scale-plans.txt") : path.join(dataDir, "plans.txt");
    writeFileSync(plansFile, plans.join("\n"));
    console.log(`\nplans: ${path.relative(process.cwd(), plansFile)}`);
  } finally {
    await removeWrites(main.client);
    if (before) await removeWrites(before.client);
    await main.close();
    await before?.close();
    if (beforeMigrations) rmSync(beforeMigrations, { recursive: true, force: true });
  }
}

if (runEndpoints) await timeEndpoints();
if (runRequestLogs) {
  console.log(
    `\n${REQUEST_LOGS_SECTION}: ${REQUEST_LOGS.toLocaleString("en")} entries beside ${Number(args["request-logs-small"]).toLocaleString("en")}`,
  );
  await timeRequestLogs({
    n: REQUEST_LOGS,
    small: Number(args["request-logs-small"]),
    runs: RUNS,
    dir: requestLogsDir(REQUEST_LOGS, args.dir && dataDir),
  });
}
process.exit(0);
