import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { Redis } from "ioredis";
import { freePort } from "./ports";
import { readRequestBody } from "./request-body";

export interface UpstashServer {
  url: string;
  token: string;
  stop(): Promise<void>;
}

type Reply = Buffer | number | null | Reply[];

/**
 * A local server speaking the Upstash Redis REST protocol in front of a real redis-server:
 * `POST /` (one command as a JSON array), `POST /pipeline`, `POST /multi-exec`, bearer token auth,
 * `Upstash-Encoding: base64`, and `{result}` / `{error}` bodies that keep Redis's error text
 * (the rate limiter falls back from EVALSHA to EVAL on "NOSCRIPT").
 *
 * One translation: Upstash accepts the script shebang flag `allow-key-locking` that
 * @upstash/ratelimit sends, real Redis 7 rejects it. Scripts are loaded without that flag and
 * the client's SHA (of the original text) is mapped to Redis's SHA, so EVALSHA works as on Upstash.
 */
export async function startUpstashServer(opts: {
  redisPort: number;
  port?: number;
  token?: string;
  /** Added before each answer, so benchmarks see the cost of a Redis round trip from the edge. */
  delayMs?: number;
}): Promise<UpstashServer> {
  const port = opts.port ?? (await freePort());
  const token = opts.token ?? randomBytes(16).toString("hex");
  // No offline queue: with Redis down, commands fail at once instead of hanging.
  const redis = new Redis({
    host: "127.0.0.1",
    port: opts.redisPort,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 200,
    // Upstash answers in RESP2's shapes (ZRANGE … WITHSCORES: members and scores alternating, flat);
    // this ioredis speaks RESP3 by default, which pairs them up.
    protocol: 2,
  });
  redis.on("error", () => {});
  redis.connect().catch(() => {});
  const shaMap = new Map<string, string>();

  const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
  const stripFlags = (script: string) =>
    script.replace(/^#!lua([^\n]*)/, (_line, rest: string) => {
      const kept = rest.replace(/flags=([^\s]*)/, (_m, flags: string) => {
        const ok = flags.split(",").filter((f) => f && f !== "allow-key-locking");
        return ok.length ? `flags=${ok.join(",")}` : "";
      });
      return `#!lua${kept.trimEnd()}`;
    });

  async function run(conn: Redis, command: unknown[]): Promise<Reply> {
    if (!Array.isArray(command) || command.length === 0) throw new Error("ERR empty command");
    const [name, ...rawArgs] = command.map((a) => (typeof a === "string" ? a : JSON.stringify(a)));
    const cmd = name.toUpperCase();
    const args = rawArgs as string[];
    if ((cmd === "EVAL" || cmd === "EVAL_RO") && args.length > 0) {
      const stripped = stripFlags(args[0]);
      shaMap.set(sha1(args[0]), sha1(stripped));
      return (await conn.callBuffer(cmd, stripped, ...args.slice(1))) as Reply;
    }
    if ((cmd === "EVALSHA" || cmd === "EVALSHA_RO") && args.length > 0) {
      return (await conn.callBuffer(cmd, shaMap.get(args[0]) ?? args[0], ...args.slice(1))) as Reply;
    }
    if (cmd === "SCRIPT" && args[0]?.toUpperCase() === "LOAD" && args[1] !== undefined) {
      const stripped = stripFlags(args[1]);
      await conn.callBuffer("SCRIPT", "LOAD", stripped);
      shaMap.set(sha1(args[1]), sha1(stripped));
      return Buffer.from(sha1(args[1]));
    }
    return (await conn.callBuffer(cmd, ...args)) as Reply;
  }

  // The client takes a top-level "OK" as is and base64-decodes every other string, array elements
  // included (a stored value "OK" inside MGET must be encoded, or it decodes to "8").
  const encode = (reply: Reply, base64: boolean, top = true): unknown => {
    if (reply === null || typeof reply === "number") return reply;
    if (Array.isArray(reply)) return reply.map((r) => encode(r, base64, false));
    const text = reply.toString("utf8");
    return base64 && !(top && text === "OK") ? reply.toString("base64") : text;
  };
  const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      const write = () => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (opts.delayMs) setTimeout(write, opts.delayMs);
      else write();
    };
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: "Unauthorized" });
    const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
    const pathname = new URL(req.url ?? "/", "http://x").pathname;
    const raw = req.method === "POST" ? await readRequestBody(req) : Buffer.alloc(0);
    if (!raw) return; // the caller went away: no one to answer
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8") || "null");
    } catch {
      return send(400, { error: "ERR failed to parse request body" });
    }
    try {
      if (pathname === "/pipeline" || pathname === "/multi-exec") {
        if (!Array.isArray(body)) return send(400, { error: "ERR pipeline body must be an array of commands" });
        if (pathname === "/pipeline") {
          const results = [];
          for (const command of body) {
            try {
              results.push({ result: encode(await run(redis, command), base64) });
            } catch (e) {
              results.push({ error: errorText(e) });
            }
          }
          return send(200, results);
        }
        // A transaction needs a connection of its own, or concurrent requests would interleave.
        // Connected before use: without the offline queue, commands sent while connecting fail.
        const conn = redis.duplicate({ lazyConnect: true });
        conn.on("error", () => {});
        try {
          await conn.connect();
          await conn.call("MULTI");
          for (const command of body) await run(conn, command);
          // A command that fails inside EXEC comes back as an error in its slot: Upstash answers it
          // as that entry's {error}, the others keep their results.
          const exec = (await conn.callBuffer("EXEC")) as (Reply | Error)[];
          return send(
            200,
            exec.map((r) => (r instanceof Error ? { error: r.message } : { result: encode(r, base64) })),
          );
        } catch (e) {
          return send(400, { error: errorText(e) });
        } finally {
          conn.disconnect();
        }
      }
      // POST / with a JSON array, or the path form /set/key/value.
      const command =
        pathname === "/"
          ? body
          : pathname
              .split("/")
              .filter(Boolean)
              .map((p) => decodeURIComponent(p));
      return send(200, { result: encode(await run(redis, command as unknown[]), base64) });
    } catch (e) {
      return send(400, { error: errorText(e) });
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    stop: () =>
      new Promise<void>((resolve) => {
        redis.disconnect();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
