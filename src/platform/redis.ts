import { error_exports, HttpClient } from "./upstash-http.js";

/**
 * The Redis commands the Worker sends to Upstash: the limiter's scripts (`evalsha`, with `eval` when
 * Redis does not have the script yet) and the readiness check's `ping`. Sent by `@upstash/redis`'s own
 * HTTP client (the REST protocol, base64 answers, retries, abort signal, its errors), without its
 * `Redis` class: that class declares every Redis command as a method, so the bundle would keep all of
 * them (about 16 KiB gzip) for these three (docs/bundle.md).
 *
 * Results are returned as Upstash sends them. `Redis` would also try `JSON.parse` on each; the
 * limiter's scripts answer integers, which that leaves unchanged.
 */
export interface UpstashRedis {
  evalsha<T = unknown>(sha: string, keys: string[], args: unknown[]): Promise<T>;
  eval<T = unknown>(script: string, keys: string[], args: unknown[]): Promise<T>;
  ping(): Promise<string>;
}

export interface UpstashRedisConfig {
  url: string;
  token: string;
  /** An abort signal per command (a function) or for all of them. */
  signal?: AbortSignal | (() => AbortSignal);
}

/** No client retries: a slow or dead Redis must not hold a request (the limiter fails open instead). */
export function upstashRedis({ url, token, signal }: UpstashRedisConfig): UpstashRedis {
  const client = new HttpClient({ baseUrl: url, headers: { authorization: `Bearer ${token}` }, retry: false, signal });
  const send = async <T>(command: unknown[]): Promise<T> => {
    // As `@upstash/redis` sends arguments: strings, numbers and booleans as they are, anything else as JSON.
    const body = command.map((c) => (["string", "number", "boolean"].includes(typeof c) ? c : JSON.stringify(c)));
    const { result, error } = await client.request<T>({ body });
    if (error) throw new error_exports.UpstashError(error);
    if (result === undefined) throw new TypeError("Request did not return a result");
    return result;
  };
  return {
    evalsha: (sha, keys, args) => send(["evalsha", sha, keys.length, ...keys, ...args]),
    eval: (script, keys, args) => send(["eval", script, keys.length, ...keys, ...args]),
    ping: () => send(["ping"]),
  };
}
