/**
 * `@upstash/core-analytics` as the Worker bundle sees it (wrangler.toml `[alias]`). @upstash/ratelimit
 * requires it at load but constructs it only with `analytics: true`; the limiter runs with
 * `analytics: false`, so the real module (Redis-side analytics scripts) would be dead weight.
 */
export class Analytics {
  constructor() {
    throw new Error("rate-limit analytics are not in the Worker bundle: construct the Ratelimit with analytics: false");
  }
}
