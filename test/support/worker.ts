import { spawnSync } from "node:child_process";
import { createWriteStream } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

const root = path.resolve(import.meta.dirname, "../..");

/** Builds the Worker bundle exactly as `wrangler deploy` would, without uploading it. */
export function buildWorker(outdir: string): string {
  const res = spawnSync(path.join(root, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", outdir], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  if (res.status !== 0) throw new Error(`wrangler build failed:\n${res.stdout}\n${res.stderr}`);
  return path.join(outdir, "index.js");
}

export interface RunningWorker {
  url: string;
  mf: Miniflare;
  dispose(): Promise<void>;
}

/**
 * Runs the built bundle in workerd through Miniflare, with wrangler.toml's compatibility settings
 * and bindings, on a free port. Worker stdout/stderr (the JSON log lines) go to `logFile`.
 */
export async function startWorker(opts: { script: string; bindings: Record<string, string>; logFile: string }): Promise<RunningWorker> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, "wrangler.toml"));
  const log = createWriteStream(opts.logFile, { flags: "a" });
  const mf = new Miniflare({
    ...(workerOptions as object),
    name: "crm-api",
    scriptPath: opts.script,
    modules: true,
    modulesRoot: path.dirname(opts.script),
    bindings: { ...(workerOptions.bindings ?? {}), ...opts.bindings },
    host: "127.0.0.1",
    port: 0,
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      stdout.pipe(log, { end: false });
      stderr.pipe(log, { end: false });
    },
  } as ConstructorParameters<typeof Miniflare>[0]);
  const url = (await mf.ready).toString().replace(/\/$/, "");
  return {
    url,
    mf,
    dispose: async () => {
      await mf.dispose();
      log.end();
    },
  };
}
