import { BATCH_ITEMS_LIMIT, type Limiter } from "./interface";
import { LocalWindow } from "./local-window";

/**
 * The isolate's own count alone: local development with RATE_LIMIT_BACKEND=memory, or Upstash not
 * configured (`notConfigured` names what is missing; said once in the log, and answers count as
 * failing open).
 */
export function createMemoryLimiter(notConfigured?: string): Limiter {
  const local = new LocalWindow();
  const items = new LocalWindow(BATCH_ITEMS_LIMIT);
  let missingLogged = false;
  return {
    refused: (key) => local.refused(key, Date.now()),
    async limit(key, _defer, logger) {
      const now = Date.now();
      const early = local.refused(key, now);
      if (early) return early;
      local.add(key, now, 1);
      if (notConfigured && !missingLogged) {
        missingLogged = true;
        logger.warn("rate limiter not configured; requests limited per isolate", { reason: notConfigured });
      }
      return local.served(key, now, notConfigured !== undefined);
    },
    async limitItems(key, n) {
      const now = Date.now();
      const refused = items.refused(key, now, n);
      if (refused) return refused;
      items.add(key, now, n);
      return items.served(key, now, notConfigured !== undefined);
    },
  };
}
