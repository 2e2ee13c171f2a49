import { spawnSync } from "node:child_process";
import { createWriteStream, readdirSync } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { setTimeout } from "node:timers/promises";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

const root = path.resolve(import.meta.dirname, "../..");

/**
 * Builds the Worker as `wrangler deploy` would, without uploading it: the project's with its own build
 * (tools/cli/worker-build.ts, wrangler.toml's [build]), whose modules wrangler uploads as they are, or
 * another entry module with the same build (`entry`; `minify: false` for readable profiles); with
 * `config` (another wrangler.toml, the benchmarks' minimal Worker), wrangler's own bundling. `root`: the
 * checkout to build (another revision's, for `npm run bench:compare`). Returns the entry module's path;
 * the modules it imports are beside it.
 */
export function buildWorker(outdir: string, config?: string, entry?: string, opts: { minify?: boolean; root?: string } = {}): string {
  const [command, args] = config
    ? [path.join(root, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", outdir, "--config", config]]
    : [
        process.execPath,
        [
          "--import",
          "tsx",
          "tools/cli/worker-build.ts",
          "--outdir",
          outdir,
          ...(entry ? ["--entry", entry] : []),
          ...(opts.minify === false ? ["--minify=false"] : []),
        ],
      ];
  const res = spawnSync(command, args, {
    cwd: opts.root ?? root,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  if (res.status !== 0) throw new Error(`build failed:\n${res.stdout}\n${res.stderr}`);
  // Named after the entry (index.js for ours).
  return path.join(outdir, readdirSync(outdir).find((f) => f.endsWith(".js") && !f.startsWith("chunk-"))!);
}

export interface RunningWorker {
  url: string;
  mf: Miniflare;
  /**
   * Runs the Worker's cron handler once (wrangler.toml's trigger by default) and waits for it to end.
   * A connection refused is tried once more after a second: Miniflare's proxy connects to workerd
   * anew, and once, on a loaded machine, found nothing accepting (the request never reached the
   * Worker, so nothing ran twice).
   */
  scheduled(cron?: string): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Runs the built bundle in workerd through Miniflare, with wrangler.toml's compatibility settings
 * and bindings, on a free port. Worker stdout/stderr (the JSON log lines) go to `logFile`.
 */
export async function startWorker(opts: {
  script: string;
  bindings: Record<string, string>;
  logFile: string;
  /** The wrangler.toml the bundle was built from (default: the project's). */
  config?: string;
  /**
   * false: without the config's static assets. Miniflare then does not put Cloudflare's asset router
   * (which runs in this same workerd locally, on Cloudflare's side in production) in front of the Worker.
   */
  assets?: false;
}): Promise<RunningWorker> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(opts.config ?? path.join(root, "wrangler.toml"));
  if (opts.assets === false) delete (workerOptions as { assets?: unknown }).assets;
  const log = createWriteStream(opts.logFile, { flags: "a" });
  const mf = new Miniflare({
    ...(workerOptions as object),
    name: opts.config ? undefined : "crm-api",
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
    scheduled: async (cron = "*/5 * * * *") => {
      const run = async () => {
        const { outcome } = await (await mf.getWorker()).scheduled({ cron });
        if (outcome !== "ok") throw new Error(`the cron handler's outcome: ${outcome}`);
      };
      await run().catch(async (e: Error) => {
        if (!/ECONNREFUSED/.test(`${e.message} ${(e.cause as Error | undefined)?.message}`)) throw e;
        await setTimeout(1000);
        await run();
      });
    },
    dispose: async () => {
      await mf.dispose();
      log.end();
    },
  };
}
