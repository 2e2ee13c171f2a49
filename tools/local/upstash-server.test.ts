import { createHash, randomUUID } from "node:crypto";
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { Redis as IORedis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalRedis, startRedis } from "./redis";
import { startUpstashServer, type UpstashServer } from "./upstash-server";

/**
 * The Upstash REST stand-in, exercised with the same @upstash/redis client the Worker uses,
 * in front of its own redis-server (not the suite's, so nothing here disturbs other files).
 */
let redis: LocalRedis;
let server: UpstashServer;
let direct: IORedis;

beforeAll(async () => {
  redis = await startRedis();
  server = await startUpstashServer({ redisPort: redis.port });
  direct = new IORedis({ port: redis.port, lazyConnect: true });
  await direct.connect();
});

afterAll(async () => {
  direct?.disconnect();
  await server?.stop();
  await redis?.stop();
});

/** The Worker's settings: base64 responses (the client's default), no retries. */
const client = (opts: { token?: string; responseEncoding?: false } = {}) =>
  new Redis({
    url: server.url,
    token: opts.token ?? server.token,
    retry: false,
    enableTelemetry: false,
    automaticDeserialization: false,
    ...(opts.responseEncoding === false ? { responseEncoding: false as const } : {}),
  });

/** The wire format itself, without the client's decoding. */
async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

const key = (name: string) => `test:${name}:${randomUUID()}`;
const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");

describe("Upstash REST server: single commands (POST /)", () => {
  it("runs commands with the Upstash client and answers {result}", async () => {
    const r = client();
    const k = key("single");
    expect(await r.set(k, "v1")).toBe("OK");
    expect(await r.get(k)).toBe("v1");
    expect(await r.incr(`${k}:n`)).toBe(1);
    expect(await r.incrby(`${k}:n`, 41)).toBe(42);
    expect(await r.get(`${k}:missing`)).toBeNull();
    await r.hset(`${k}:h`, { a: "1", b: "two" });
    expect(await r.hgetall(`${k}:h`)).toEqual(["a", "1", "b", "two"]); // raw: automaticDeserialization off
    expect(await r.del(k, `${k}:n`)).toBe(2);
    expect(await direct.exists(k)).toBe(0);
  });

  it("answers the Upstash wire format: {result} with null, integers and arrays", async () => {
    const k = key("wire");
    expect(await post("/", ["SET", k, "x"])).toEqual({ status: 200, body: { result: "OK" } });
    expect(await post("/", ["GET", k])).toEqual({ status: 200, body: { result: "x" } });
    expect(await post("/", ["GET", `${k}:missing`])).toEqual({ status: 200, body: { result: null } });
    expect(await post("/", ["RPUSH", `${k}:l`, "a", "b"])).toEqual({ status: 200, body: { result: 2 } });
    expect(await post("/", ["LRANGE", `${k}:l`, 0, -1])).toEqual({ status: 200, body: { result: ["a", "b"] } });
    // Scores alternate with members, as Redis answers (ioredis would pair them up).
    await post("/", ["ZADD", `${k}:z`, 5, "m1", 7, "m2"]);
    expect(await post("/", ["ZRANGE", `${k}:z`, 6, "+inf", "BYSCORE", "WITHSCORES"])).toEqual({
      status: 200,
      body: { result: ["m2", "7"] },
    });
    expect(await post("/", ["NOSUCHCOMMAND"])).toEqual({
      status: 400,
      body: { error: expect.stringMatching(/^ERR unknown command/) },
    });
  });
});

describe("Upstash REST server: /pipeline", () => {
  it("runs every command in order and answers each one, errors included", async () => {
    const k = key("pipeline");
    const results = await client()
      .pipeline()
      .set(k, "a")
      .append(k, "b")
      .get(k)
      .incr(k) // not an integer: this entry fails, the others stand
      .set(`${k}:after`, "ran")
      .exec({ keepErrors: true });
    expect(results).toEqual([
      { result: "OK", error: undefined },
      { result: 2, error: undefined },
      { result: "ab", error: undefined },
      { result: undefined, error: "ERR value is not an integer or out of range" },
      { result: "OK", error: undefined },
    ]);
    expect(await direct.get(`${k}:after`)).toBe("ran");
  });

  it("makes the client reject a pipeline with a failed command (default exec)", async () => {
    const k = key("pipeline-throws");
    await direct.set(k, "text");
    await expect(client().pipeline().get(k).incr(k).exec()).rejects.toThrow(
      "Command 2 [ incr ] failed: ERR value is not an integer or out of range",
    );
  });
});

describe("Upstash REST server: /multi-exec", () => {
  it("runs a transaction and answers each result", async () => {
    const k = key("multi");
    const results = await client().multi().set(k, "1").incr(k).get(k).exec();
    expect(results).toEqual(["OK", 2, "2"]);
  });

  it("answers a command that fails inside EXEC as {error} (as Upstash does), the others still apply", async () => {
    const k = key("multi-fail");
    const wire = await post("/multi-exec", [
      ["SET", k, "text"],
      ["INCR", k],
      ["APPEND", k, "!"],
    ]);
    expect(wire).toEqual({
      status: 200,
      body: [{ result: "OK" }, { error: "ERR value is not an integer or out of range" }, { result: 5 }],
    });
    expect(await direct.get(k)).toBe("text!");

    // The same through the client, base64 encoded.
    const k2 = key("multi-fail-client");
    const viaClient = await client().multi().set(k2, "text").incr(k2).get(k2).exec({ keepErrors: true });
    expect(viaClient).toEqual([
      { result: "OK", error: undefined },
      { result: undefined, error: "ERR value is not an integer or out of range" },
      { result: "text", error: undefined },
    ]);
    await expect(client().multi().set(k2, "x").incr(k2).exec()).rejects.toThrow(
      "Command 2 [ incr ] failed: ERR value is not an integer or out of range",
    );
  });

  it("discards the whole transaction when a command is rejected before EXEC", async () => {
    const k = key("multi-abort");
    const wire = await post("/multi-exec", [["SET", k, "written?"], ["NOSUCHCOMMAND"]]);
    expect(wire.status).toBe(400);
    expect(wire.body).toEqual({ error: expect.stringMatching(/^ERR unknown command/) });
    expect(await direct.exists(k)).toBe(0);
  });

  it("keeps concurrent transactions apart", async () => {
    const k = key("multi-concurrent");
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => client().multi().set(k, String(i)).get(k).exec()));
    expect(answers).toEqual(answers.map((_, i) => ["OK", String(i)]));
  });
});

describe("Upstash REST server: bearer token", () => {
  it("refuses a wrong or missing token with 401", async () => {
    for (const authorization of [undefined, "Bearer wrong", `Basic ${server.token}`, `Bearer ${server.token}x`]) {
      const res = await fetch(server.url, {
        method: "POST",
        headers: authorization ? { authorization } : {},
        body: JSON.stringify(["PING"]),
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: "Unauthorized" });
    }
    for (const path of ["/pipeline", "/multi-exec"]) {
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer wrong" },
        body: JSON.stringify([["SET", key("refused"), "x"]]),
      });
      expect(res.status).toBe(401);
    }
    await expect(client({ token: "wrong" }).set(key("refused"), "x")).rejects.toThrow(/^Unauthorized/);
    expect(await direct.keys("test:refused:*")).toEqual([]);
  });
});

describe("Upstash REST server: Upstash-Encoding: base64", () => {
  const values = [
    "héllo wörld",
    "日本語のテキスト",
    "emoji 😀🎉 and ZWJ 👩‍👩‍👧",
    "control \u0000\u0001\u0007\u001b[0m NUL and escapes",
    "\u00ff\u00fe\u0080 latin-1 high bytes",
    'line\r\nbreaks\tand "quotes" \\ backslash',
    "OK",
    "",
    "T0s=", // looks like base64 itself
  ];

  it("round-trips non-ASCII and binary-ish strings through the client (base64 and plain)", async () => {
    for (const r of [client(), client({ responseEncoding: false })]) {
      const k = key("enc");
      for (const [i, value] of values.entries()) {
        await r.set(`${k}:${i}`, value);
        expect(await r.get(`${k}:${i}`)).toBe(value);
        // Stored as exactly these UTF-8 bytes in Redis.
        expect((await direct.getBuffer(`${k}:${i}`))!.equals(Buffer.from(value, "utf8"))).toBe(true);
      }
      // Arrays (MGET, LRANGE), pipeline and multi-exec answers are decoded element by element.
      expect(await r.mget(...values.map((_, i) => `${k}:${i}`))).toEqual(values);
      await r.rpush(`${k}:list`, ...values);
      expect(await r.lrange(`${k}:list`, 0, -1)).toEqual(values);
      expect(await r.pipeline().get(`${k}:0`).get(`${k}:1`).exec()).toEqual([values[0], values[1]]);
      expect(await r.multi().get(`${k}:2`).get(`${k}:3`).exec()).toEqual([values[2], values[3]]);
    }
  });

  it("sends base64 of the UTF-8 bytes when asked, plain text otherwise", async () => {
    const k = key("enc-wire");
    await direct.set(k, "héllo 😀");
    const b64 = Buffer.from("héllo 😀", "utf8").toString("base64");
    expect((await post("/", ["GET", k], { "upstash-encoding": "base64" })).body).toEqual({ result: b64 });
    expect((await post("/", ["GET", k])).body).toEqual({ result: "héllo 😀" });
    expect((await post("/pipeline", [["GET", k]], { "upstash-encoding": "base64" })).body).toEqual([{ result: b64 }]);
    expect((await post("/multi-exec", [["GET", k]], { "upstash-encoding": "base64" })).body).toEqual([{ result: b64 }]);
    // Integers and null are never encoded.
    expect((await post("/", ["STRLEN", k], { "upstash-encoding": "base64" })).body).toEqual({ result: 11 });
    expect((await post("/", ["GET", `${k}:none`], { "upstash-encoding": "base64" })).body).toEqual({ result: null });
  });
});

describe("Upstash REST server: Redis error text intact", () => {
  it("answers NOSCRIPT for EVALSHA of an unknown script", async () => {
    const unknown = sha1(`return '${randomUUID()}'`);
    expect(await post("/", ["EVALSHA", unknown, 0])).toEqual({
      status: 400,
      body: { error: "NOSCRIPT No matching script. Please use EVAL." },
    });
    await expect(client().evalsha(unknown, [], [])).rejects.toThrow("NOSCRIPT No matching script. Please use EVAL.");
  });

  it("answers WRONGTYPE as Redis words it, for single commands and pipeline entries", async () => {
    const k = key("wrongtype");
    await direct.rpush(k, "x");
    const wrongtype = "WRONGTYPE Operation against a key holding the wrong kind of value";
    expect(await post("/", ["GET", k])).toEqual({ status: 400, body: { error: wrongtype } });
    await expect(client().get(k)).rejects.toThrow(wrongtype);
    expect((await post("/pipeline", [["GET", k]])).body).toEqual([{ error: wrongtype }]);
    expect((await post("/multi-exec", [["GET", k]])).body).toEqual([{ error: wrongtype }]);
  });
});

describe("Upstash REST server: the allow-key-locking script flag", () => {
  const incrScript = (tag: string) => `#!lua flags=allow-key-locking\n-- ${tag}\nreturn redis.call('INCR', KEYS[1])`;

  it("is one Redis 7 itself rejects (why the server translates it)", async () => {
    await expect(direct.eval(incrScript("raw"), 1, key("raw"))).rejects.toThrow(/allow-key-locking/);
  });

  it("EVAL works, and EVALSHA of the client's SHA works after it", async () => {
    const r = client();
    const script = incrScript(randomUUID());
    const k = key("eval");
    await expect(r.evalsha(sha1(script), [k], [])).rejects.toThrow("NOSCRIPT No matching script");
    expect(await r.eval(script, [k], [])).toBe(1);
    expect(await r.evalsha(sha1(script), [k], [])).toBe(2);
    expect(await direct.get(k)).toBe("2");
  });

  it("SCRIPT LOAD answers the client's SHA, which EVALSHA then runs", async () => {
    const r = client();
    const script = incrScript(randomUUID());
    const k = key("load");
    expect(await r.scriptLoad(script)).toBe(sha1(script));
    expect(await r.evalsha(sha1(script), [k], [])).toBe(1);
    // Also inside a pipeline and a transaction.
    expect(await r.pipeline().evalsha(sha1(script), [k], []).exec()).toEqual([2]);
    expect(await r.multi().evalsha(sha1(script), [k], []).exec()).toEqual([3]);
  });

  it("keeps the script's other flags", async () => {
    const r = client();
    const k = key("flags");
    await direct.set(k, "v");
    const read = `#!lua flags=no-writes,allow-key-locking\n-- ${randomUUID()}\nreturn redis.call('GET', KEYS[1])`;
    expect(await r.eval(read, [k], [])).toBe("v");
    expect(await r.evalsha(sha1(read), [k], [])).toBe("v");
    const write = `#!lua flags=allow-key-locking,no-writes\n-- ${randomUUID()}\nreturn redis.call('SET', KEYS[1], 'w')`;
    await expect(r.eval(write, [k], [])).rejects.toThrow(/Write commands are not allowed from read-only scripts/);
    expect(await direct.get(k)).toBe("v");
  });

  it("leaves scripts without the flag as they are (same SHA as Redis)", async () => {
    const script = `return redis.call('INCR', KEYS[1]) -- ${randomUUID()}`;
    const k = key("plain");
    expect(await client().eval(script, [k], [])).toBe(1);
    expect(await direct.evalsha(sha1(script), 1, k)).toBe(2);
  });
});

describe("Upstash REST server: @upstash/ratelimit", () => {
  it("slidingWindow allows N requests per key and refuses the next, other keys unaffected", async () => {
    const limit = 5;
    const ratelimit = new Ratelimit({
      redis: client(),
      limiter: Ratelimit.slidingWindow(limit, "60 s"),
      prefix: `test:ratelimit:${randomUUID()}`,
      ephemeralCache: false,
      analytics: false,
    });
    const results = [];
    for (let i = 0; i <= limit; i++) {
      const res = await ratelimit.limit("a");
      await res.pending;
      results.push(res);
    }
    expect(results.map((r) => r.success)).toEqual([true, true, true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    // A timeout would let the request through with reason "timeout"; these were real answers.
    expect(results.every((r) => r.reason === undefined && r.limit === limit)).toBe(true);
    expect(results[limit].reset).toBeGreaterThan(Date.now());
    const other = await ratelimit.limit("b");
    expect(other.success).toBe(true);
    expect(other.remaining).toBe(limit - 1);
  });
});
