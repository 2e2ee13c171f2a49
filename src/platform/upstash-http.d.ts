/**
 * Types of what `./upstash-http.js` re-exports from `@upstash/redis`'s shared module: its HTTP client
 * and errors. The package declares the client's config but not the class; these are the shapes
 * `redis.ts` uses.
 */
export interface HttpClientConfig {
  baseUrl: string;
  headers?: Record<string, string>;
  /** false: one attempt, no retries. */
  retry?: false | { retries?: number; backoff?: (retryCount: number) => number };
  signal?: AbortSignal | (() => AbortSignal);
}

export declare class HttpClient {
  constructor(config: HttpClientConfig);
  request<T>(req: { body: unknown[] }): Promise<{ result?: T; error?: string }>;
}

export declare const error_exports: { UpstashError: new (message: string) => Error };
