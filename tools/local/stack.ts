import { sqlOverHttp } from "./neon-http";
import { type LocalPostgres, startPostgres } from "./postgres";
import { type LocalRedis, redisServerAvailable, startRedis } from "./redis";
import { startUpstashServer, type UpstashServer } from "./upstash-server";
import { startWsProxy, type WsProxy } from "./ws-proxy";

export interface Stack {
  postgres?: LocalPostgres;
  proxy?: WsProxy;
  redis?: LocalRedis;
  upstash?: UpstashServer;
  /** The Worker's bindings for this stack. */
  vars: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The local stand-ins for Neon and Upstash, from real parts: embedded PostgreSQL behind a
 * Neon-convention WebSocket proxy that also serves Neon's SQL-over-HTTP protocol, and redis-server behind an Upstash-protocol REST server.
 * `redis: "required"` fails without redis-server; "optional" falls back to the in-memory limiter;
 * "none" starts no limiter backend (configured elsewhere). `postgres: false` likewise.
 */
export async function startStack(opts: {
  dataDir: string;
  postgres?: boolean;
  redis: "required" | "optional" | "none";
  proxyDelayMs?: number;
  redisDelayMs?: number;
  log?: (line: string) => void;
  /** Keeps PostgreSQL running: restarted if it exits, with one line saying so (see `startPostgres`). */
  onPostgresRestart?: (line: string) => void;
}): Promise<Stack> {
  const log = opts.log ?? (() => {});
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stoppers.reverse()) await s().catch(() => {});
  };
  try {
    // Webhook receivers of the local stack and tests listen on 127.0.0.1 over plain http.
    const vars: Record<string, string> = { WEBHOOK_ALLOW_LOCAL_HTTP: "true" };
    let postgres: LocalPostgres | undefined;
    let proxy: WsProxy | undefined;
    if (opts.postgres !== false) {
      postgres = await startPostgres(opts.dataDir, log, { onRestart: opts.onPostgresRestart });
      stoppers.push(postgres.stop);
      // One address for both of the driver's ways in: SQL over HTTP (the request path) and WebSocket sessions.
      const sql = sqlOverHttp({ delayMs: opts.proxyDelayMs });
      stoppers.push(sql.close);
      proxy = await startWsProxy({ delayMs: opts.proxyDelayMs, http: sql.listener });
      stoppers.push(proxy.stop);
      Object.assign(vars, { DATABASE_URL: postgres.url, NEON_LOCAL_PROXY: proxy.address });
    }

    let redis: LocalRedis | undefined;
    let upstash: UpstashServer | undefined;
    if (opts.redis === "none") {
      // The limiter is configured elsewhere.
    } else if (redisServerAvailable()) {
      redis = await startRedis();
      stoppers.push(redis.stop);
      upstash = await startUpstashServer({ redisPort: redis.port, delayMs: opts.redisDelayMs });
      stoppers.push(upstash.stop);
      vars.UPSTASH_REDIS_REST_URL = upstash.url;
      vars.UPSTASH_REDIS_REST_TOKEN = upstash.token;
    } else if (opts.redis === "required") {
      throw new Error("redis-server is not installed (Debian/Ubuntu: sudo apt-get install -y redis-server)");
    } else {
      vars.RATE_LIMIT_BACKEND = "memory";
    }
    return { postgres, proxy, redis, upstash, vars, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
