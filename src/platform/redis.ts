import { Redis } from "@upstash/redis/cloudflare";

/**
 * The Upstash Redis client the Worker sends its commands with: the limiter's scripts (`evalsha`, with
 * `eval` when Redis does not have the script yet) and the readiness check's `ping`, through
 * `@upstash/redis`'s public `Redis` class (the REST protocol, base64 answers, abort signal, its errors).
 */
export interface UpstashRedisConfig {
  url: string;
  token: string;
  /** An abort signal per command (a function) or for all of them. */
  signal?: AbortSignal | (() => AbortSignal);
}

/**
 * No client retries: a slow or dead Redis must not hold a request (the limiter fails open instead).
 * No telemetry headers on the requests. No auto-pipelining (the package's default): each command is
 * one request, sent at once, instead of going through a proxy that collects the commands of the same
 * tick into a pipeline object built per batch (with every command as a method) and sends them to
 * `/pipeline` two microtasks later. The limiter sends one command per call, so there is nothing to batch.
 */
export const upstashRedis = ({ url, token, signal }: UpstashRedisConfig) =>
  new Redis({ url, token, retry: false, signal, enableTelemetry: false, enableAutoPipelining: false });
