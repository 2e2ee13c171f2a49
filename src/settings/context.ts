import type { UserRole } from "../db/schema/users";
import type { Variables } from "../http/context";
import type { Bindings } from "../platform/env";

/** The signed-in user of a settings request (`c.get("user")`). */
export interface SettingsUser {
  id: number;
  companyId: number;
  companyName: string;
  email: string;
  role: UserRole;
}

export interface SettingsVariables extends Variables {
  /** Set by `requireUser`; pages behind it may read it. */
  user: SettingsUser;
  /** The CSRF token forms carry in `_csrf` (the session's, or the signed-out visitor's). */
  csrfToken: string;
  /** The session's digest (user_sessions.token_hash), for ending it. */
  sessionHash: string;
  /** The client's address (`CF-Connecting-IP`), for the limiter and the audit trail. */
  clientIp: string;
  /** Where this page's forms may end up besides this origin (CSP form-action: the OAuth consent's redirect). */
  formActionExtra?: string;
}

export type SettingsEnv = { Bindings: Bindings; Variables: SettingsVariables };
