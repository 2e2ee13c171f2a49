import type { TokenScope } from "../db/schema/companies";
import type { Config } from "../platform/config";
import type { Db } from "../platform/db";
import type { Bindings } from "../platform/env";
import type { Logger } from "../platform/logger";

export interface Auth {
  companyId: number;
  tokenId: number;
  /** `read`: GET operations only; `write`: every operation. */
  scope: TokenScope;
  /**
   * SHA-256 hex digest of the bearer token; the rate-limit key. Never the raw token. For an OAuth access
   * token, the grant's key (http/grants.ts), so every token of a grant shares its limit.
   */
  tokenHash: string;
  /** An OAuth access token's grant, its client and the user who allowed it; tokenId is 0 then. */
  grant?: { id: number; clientId: string; userId: number };
}

export interface Variables {
  requestId: string;
  logger: Logger;
  /** SQL over HTTP: one round trip per statement or batch; `transaction()` is not available on it. */
  db: Db;
  /** An interactive transaction on a WebSocket session of its own (deadline included), for work that cannot be one statement. */
  transaction: <T>(work: (tx: Db) => Promise<T>) => Promise<T>;
  /** Work that may finish after the response (waitUntil). */
  defer: (task: Promise<unknown>) => void;
  auth: Auth;
  /**
   * Resolves once the rate limiter let this request through, and throws its 429 otherwise. A write
   * declared `readsFirst` awaits it before its first write (authenticate waits for it for other writes).
   */
  admitted: () => Promise<void>;
  /** The operation's operationId (`listClients`), set by its route (createAuthRoute) before anything else: the request log names it. */
  operation?: string;
  /** The settings, parsed from the bindings (platform/config). */
  config: Config;
}

export type AppEnv = { Bindings: Bindings; Variables: Variables };
