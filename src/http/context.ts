import type { Db } from "../platform/db";
import type { Bindings } from "../platform/env";
import type { Logger } from "../platform/logger";

export interface Auth {
  companyId: number;
  tokenId: number;
  /** SHA-256 hex digest of the bearer token; the rate-limit key. Never the raw token. */
  tokenHash: string;
}

export interface Variables {
  requestId: string;
  logger: Logger;
  db: Db;
  /** Work that may finish after the response (waitUntil); the pool closes after it. */
  defer: (task: Promise<unknown>) => void;
  auth: Auth;
  /** Set once the body has been read, so only the first (most specific) limit applies. */
  bodyGuarded?: boolean;
}

export type AppEnv = { Bindings: Bindings; Variables: Variables };
