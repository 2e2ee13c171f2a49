import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

/** The postmaster's PID, from its data directory. */
export const postmasterPid = (dataDir: string) => Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);

/**
 * Every PID of the process tree under `pid` (PostgreSQL's postmaster and its backends), from one `ps`:
 * a `pgrep` per process blocks this process (and the local stack's proxies, which run in it) for seconds
 * on a busy machine, while the server goes on.
 */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const line of execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" }).split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child && parent) children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/** Sends `signal` to each of `pids`; one that has exited since (a session ended) is passed over. */
export function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ESRCH") throw e;
    }
  }
}
