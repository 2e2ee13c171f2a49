/**
 * Scale benchmark: `npm run bench:scale [-- --n 100000] [--runs 15]`.
 * Delete .bench-scale/<N>/ to seed again.
 * Seeds the local stack through SQL to N rows per table for one company and N/100 for another
 * (kept in .bench-scale/<N>/ and reused by later runs), runs the real Worker bundle in workerd, times
 * every endpoint for both companies interleaved, and prints the p50 per endpoint and the ratio.
 * Then runs each endpoint once more for the big company under auto_explain and writes the plans of
 * its statements to docs/scale-plans.txt (with --n 1000000, the default).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../src/db/schema";
import { type CursorScope, encodeCursor, type KeysetSort } from "../../src/http/pagination";
import type { Db } from "../../src/platform/db";
import { CLIENTS_SORT } from "../../src/routes/clients/list";
import { ORDERS_SORT } from "../../src/routes/orders/list";
import { startStack } from "../../tools/local/stack";
import { createToken } from "../../tools/ops/commands";
import { projectRoot } from "../../tools/ops/config";
import { runMigrations } from "../../tools/ops/migrate";
import { buildWorker, startWorker } from "../support/worker";
import { SEED_TERMS, seedCompany } from "./scale-seed";

const { values: args } = parseArgs({
  options: { n: { type: "string", default: "1000000" }, runs: { type: "string", default: "15" } },
});
const N = Number(args.n);
const RUNS = Number(args.runs);
if (!Number.isInteger(N) || N < 10_000) throw new Error("--n must be a whole number of at least 10000");

interface Endpoint {
  name: string;
  /** The goal's bound on big / small, or a note why there is none. */
  goal: number | string;
  path: string;
}

const SHARED_BUFFERS = "1GB";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The paths to time for one company, with ids and cursors taken from its own data. */
async function endpointsFor(client: pg.Client, companyId: number, n: number): Promise<Endpoint[]> {
  const one = async <T>(text: string, params: unknown[]) => (await client.query(text, params)).rows[0] as T;
  const live = (await one<{ n: string }>("select count(*) n from clients where company_id = $1 and deleted_at is null", [companyId])).n;
  const deep = Math.floor(Number(live) * 0.95);
  const deepClient = await one<{ id: number }>(
    "select id from clients where company_id = $1 and deleted_at is null order by id offset $2 limit 1",
    [companyId, deep],
  );
  const deepOrder = await one<{ key: string[] }>(
    `select array[((extract(epoch from created_at) * 1000000)::bigint)::text, id::text] key from projects
     where company_id = $1 and deleted_at is null order by created_at desc, id desc offset $2 limit 1`,
    [companyId, deep],
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
  const cursor = (sort: KeysetSort, filters: CursorScope["filters"], key: string[]) =>
    encodeURIComponent(encodeCursor(sort, { companyId, filters }, key, 2));
  const noOrderFilters = { client_id: null, status: null, from: null, to: null, updated_since: null, include_deleted: false };
  // A month of orders, a year back from the newest (the seed spreads n orders over three years).
  const month = {
    from: new Date(Date.now() - 365 * 864e5).toISOString().slice(0, 10),
    to: new Date(Date.now() - 335 * 864e5).toISOString().slice(0, 10),
  };
  const pages = Math.floor(deep / 50) + 1;
  void n;
  return [
    { name: "clients page 1", goal: 2, path: "/clients" },
    {
      name: "clients by cursor at 95 %",
      goal: 2,
      path: `/clients?per_page=50&cursor=${cursor(CLIENTS_SORT, { q: null, updated_since: null, include_deleted: false }, [String(deepClient.id)])}`,
    },
    { name: "clients page at 95 % (offset)", goal: "OFFSET walks every earlier row", path: `/clients?per_page=50&page=${pages}` },
    { name: `clients q=${SEED_TERMS.commonClient} (common)`, goal: 2, path: `/clients?q=${SEED_TERMS.commonClient}` },
    { name: `clients q=${SEED_TERMS.rareClient} (rare)`, goal: 2, path: `/clients?q=${SEED_TERMS.rareClient}` },
    { name: "orders page 1", goal: 2, path: "/orders" },
    { name: "orders ?client_id", goal: 2, path: `/orders?client_id=${busyClient.client_id}` },
    { name: "orders ?status", goal: 2, path: `/orders?status=${status.id}` },
    { name: "orders ?from&to (a month)", goal: 2, path: `/orders?from=${month.from}&to=${month.to}` },
    { name: "orders by cursor at 95 %", goal: 2, path: `/orders?per_page=50&cursor=${cursor(ORDERS_SORT, noOrderFilters, deepOrder.key)}` },
    { name: "orders page at 95 % (offset)", goal: "OFFSET walks every earlier row", path: `/orders?per_page=50&page=${pages}` },
    {
      name: `search q=${SEED_TERMS.commonProduct} (common)`,
      goal: 2,
      path: `/products/search?include=local,lines&q=${SEED_TERMS.commonProduct}`,
    },
    {
      name: `search q=${SEED_TERMS.rareProduct} (rare)`,
      goal: 2,
      path: `/products/search?include=local,lines&q=${SEED_TERMS.rareProduct}`,
    },
    { name: "client by id", goal: 2, path: `/clients/${sample.client_id}` },
    { name: "client by email", goal: 2, path: `/clients/_?email=${encodeURIComponent(sample.email)}` },
    { name: "order by id", goal: 2, path: `/orders/${sample.order_id}` },
    { name: "invoice line by id", goal: 2, path: `/products/invoice_item?id=${sample.line_id}` },
  ];
}

const dataDir = path.join(projectRoot, ".bench-scale", String(N));
mkdirSync(dataDir, { recursive: true });
let pgLog = "";
const start = () =>
  startStack({
    dataDir: path.join(dataDir, "postgres"),
    redis: "required",
    log: (line) => {
      pgLog += `${line}\n`;
    },
  });
let stack = await start();
// Memory for the data, as a production database of this size would have: the default 128 MB would
// measure the operating system's page cache more than the queries.
{
  const admin = new pg.Client({ connectionString: stack.postgres!.url });
  await admin.connect();
  const { rows } = await admin.query("show shared_buffers");
  if (rows[0].shared_buffers !== SHARED_BUFFERS) {
    await admin.query(`alter system set shared_buffers = '${SHARED_BUFFERS}'`);
    await admin.end();
    await stack.stop();
    stack = await start();
  } else {
    await admin.end();
  }
}
const client = new pg.Client({ connectionString: stack.postgres!.url });
let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
try {
  await runMigrations(stack.postgres!.url);
  await client.connect();
  const names = { big: `Scale big (${N})`, small: `Scale small (${N / 100})` };
  const findCompany = async (name: string) =>
    (await client.query<{ id: number }>("select id from companies where name = $1", [name])).rows[0]?.id;
  let big = await findCompany(names.big);
  let small = await findCompany(names.small);
  if (!big || !small) {
    const started = Date.now();
    console.log(`seeding ${N} rows per table (and ${N / 100}) into ${dataDir} …`);
    big ??= await seedCompany(client, names.big, N, console.log);
    small ??= await seedCompany(client, names.small, N / 100, console.log);
    await client.query("vacuum analyze");
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } else {
    // Statistics for indexes a newer migration added (expression indexes have their own).
    await client.query("analyze");
  }

  const db = drizzle(client, { schema }) as unknown as Db;
  const companies = [
    { label: "big", id: big, endpoints: await endpointsFor(client, big, N) },
    { label: "small", id: small, endpoints: await endpointsFor(client, small, N / 100) },
  ];
  // One token per endpoint and company: the runs stay under the per-key rate limit.
  const tokens = new Map<string, string>();
  for (const co of companies) {
    for (const ep of co.endpoints) tokens.set(`${co.label}:${ep.name}`, (await createToken(db, { companyId: co.id })).token);
  }

  const tmp = path.join(dataDir, "worker");
  mkdirSync(tmp, { recursive: true });
  worker = await startWorker({ script: buildWorker(tmp), bindings: stack.vars, logFile: path.join(dataDir, "worker.log") });
  const hit = async (label: string, ep: Endpoint) => {
    const started = performance.now();
    const res = await fetch(`${worker!.url}/api/v1${ep.path}`, {
      headers: { authorization: `Bearer ${tokens.get(`${label}:${ep.name}`)}` },
    });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${label} ${ep.name}: ${res.status} ${body.slice(0, 300)}`);
    return performance.now() - started;
  };

  const times = new Map<string, number[]>();
  for (let run = 0; run < RUNS + 2; run++) {
    for (let e = 0; e < companies[0].endpoints.length; e++) {
      // Interleaved, alternating which company goes first.
      for (const co of run % 2 ? companies : [...companies].reverse()) {
        const ms = await hit(co.label, co.endpoints[e]);
        if (run >= 2) times.set(`${co.label}:${e}`, [...(times.get(`${co.label}:${e}`) ?? []), ms]);
      }
    }
  }

  const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, local stack (embedded PostgreSQL ${(await client.query("show server_version")).rows[0].server_version}, shared_buffers ${SHARED_BUFFERS}, workerd)`;
  const lines = [
    `bench:scale ${new Date().toISOString().slice(0, 10)}, N = ${N} (big) vs ${N / 100} (small), p50 of ${RUNS} interleaved runs, ${machine}`,
    "",
    `| endpoint | ${N.toLocaleString("en")} | ${(N / 100).toLocaleString("en")} | ratio | goal |`,
    "|---|---:|---:|---:|---|",
  ];
  for (const [e, ep] of companies[0].endpoints.entries()) {
    const b = median(times.get(`big:${e}`)!);
    const s = median(times.get(`small:${e}`)!);
    const ratio = b / s;
    const goal = typeof ep.goal === "number" ? `≤ ${ep.goal}× ${ratio <= ep.goal ? "ok" : "MISSED"}` : ep.goal;
    lines.push(`| ${ep.name} | ${b.toFixed(0)} ms | ${s.toFixed(0)} ms | ${ratio.toFixed(2)}× | ${goal} |`);
  }
  console.log(lines.join("\n"));

  // Plans: auto_explain on every statement of one more request per endpoint (big company).
  await client.query("alter database crm set session_preload_libraries = 'auto_explain'");
  for (const setting of ["log_min_duration = 0", "log_analyze = on", "log_buffers = on", "log_timing = on"]) {
    await client.query(`alter database crm set auto_explain.${setting}`);
  }
  const plans: string[] = [`EXPLAIN ANALYZE (auto_explain) of each endpoint's statements for the ${N}-row company; ${lines[0]}`, ""];
  try {
    for (const ep of companies[0].endpoints) {
      pgLog = "";
      const ms = await hit("big", ep);
      await new Promise((r) => setTimeout(r, 300)); // the server's log lines arrive on their own
      const statements = pgLog
        .split(/(?=LOG:\s+duration:)/)
        .filter((p) => p.includes("Query Text:") && !p.includes("api_tokens"))
        .map((p) => p.replace(/^.*?LOG:\s+/s, "").trimEnd());
      plans.push(`=== ${ep.name}: GET ${ep.path.slice(0, 120)} (${ms.toFixed(0)} ms with auto_explain)`, ...statements, "");
    }
  } finally {
    await client.query("alter database crm reset all");
  }
  if (N === 1_000_000) {
    writeFileSync(path.join(projectRoot, "docs/scale-plans.txt"), plans.join("\n"));
    console.log("\nplans: docs/scale-plans.txt");
  } else {
    writeFileSync(path.join(dataDir, "plans.txt"), plans.join("\n"));
    console.log(`\nplans: ${path.join(dataDir, "plans.txt")}`);
  }
} finally {
  await client.end().catch(() => {});
  await worker?.dispose();
  await stack.stop();
}
process.exit(0);
