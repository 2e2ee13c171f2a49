import type { UserRole } from "../../src/db/schema/users";
import { createUserWithLink } from "../../src/settings/setup-links";
import { db, freshClientAddress } from "./api";

/**
 * A client of the settings area over plain HTTP, as a browser without JavaScript drives it: a cookie jar,
 * forms posted as `application/x-www-form-urlencoded` with the page's `_csrf`, redirects not followed
 * (tests look at them). Each client sends its own `CF-Connecting-IP`, so sign-in throttling per client
 * counts one test's attempts only.
 */
export class SettingsClient {
  readonly cookies = new Map<string, string>();
  readonly ip: string;

  constructor(
    readonly origin: string,
    ip?: string,
  ) {
    this.ip = ip ?? freshClientAddress();
  }

  /** The Cookie header the browser would send. */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async request(method: string, path: string, body?: URLSearchParams | string, headers: Record<string, string> = {}): Promise<Page> {
    const res = await fetch(`${this.origin}${path}`, {
      method,
      redirect: "manual",
      headers: {
        "cf-connecting-ip": this.ip,
        ...(this.cookies.size ? { cookie: this.cookieHeader() } : {}),
        ...(body !== undefined ? { "content-type": "application/x-www-form-urlencoded" } : {}),
        ...headers,
      },
      body,
    });
    // Node's fetch (the project's types are the Workers' own, which lack getSetCookie).
    for (const line of (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const gone = attrs.some((a: string) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (gone || !value) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return new Page(res, await res.text());
  }

  get = (path: string) => this.request("GET", path);

  /** Posts `fields`; `_csrf` from `csrfFrom` (a page, or a path fetched first), unless given or `csrf: false`. */
  async post(path: string, fields: Record<string, string>, opts: { csrfFrom?: Page | string; csrf?: string | false } = {}): Promise<Page> {
    const form = new URLSearchParams(fields);
    if (opts.csrf !== false) {
      const token =
        opts.csrf ?? (typeof opts.csrfFrom === "object" ? opts.csrfFrom : await this.get(opts.csrfFrom ?? "/settings/account")).csrf();
      form.set("_csrf", token);
    }
    return this.request("POST", path, form);
  }

  /** Signs in through the sign-in form; returns the answer to the POST. */
  async signIn(email: string, password: string): Promise<Page> {
    const form = await this.get("/settings/sign-in");
    return this.post("/settings/sign-in", { email, password }, { csrfFrom: form });
  }

  /** Chooses the password on a setup link (which signs in); returns the answer to the POST. */
  async setUp(setupUrl: string, password: string): Promise<Page> {
    const path = new URL(setupUrl).pathname;
    const form = await this.get(path);
    return this.post(path, { password, password_confirmation: password }, { csrfFrom: form });
  }
}

export class Page {
  constructor(
    readonly res: Response,
    readonly html: string,
  ) {}
  get status() {
    return this.res.status;
  }
  get location() {
    return this.res.headers.get("location");
  }
  /** The first form's `_csrf` value. */
  csrf(): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(this.html);
    if (!m) throw new Error(`no _csrf on the page (status ${this.status}): ${this.html.slice(0, 300)}`);
    return m[1];
  }
  /** The text of the element with this data-testid (tags stripped). */
  testId(id: string): string | undefined {
    const m = new RegExp(`data-testid="${id}"[^>]*>([\\s\\S]*?)</`).exec(this.html);
    return m?.[1].replace(/<[^>]+>/g, "").trim();
  }
}

let userSeq = 0;
/** A unique address for a test user. */
export const testEmail = (label = "user") => `${label}-${process.pid}-${++userSeq}-${Date.now()}@example.test`;

/** A long enough password for tests. */
export const TEST_PASSWORD = "correct horse battery staple";

/** A user of `companyId` made as the CLI makes one (a setup link), not yet set up. */
export async function newSettingsUser(origin: string, companyId: number, role: UserRole = "owner", email = testEmail(role)) {
  return createUserWithLink(db(), { companyId, email, role, baseUrl: origin, actor: { type: "system", id: null } });
}

/** A signed-in client of a new user of `companyId` (set up through its link with TEST_PASSWORD). */
export async function signedIn(origin: string, companyId: number, role: UserRole = "owner") {
  const made = await newSettingsUser(origin, companyId, role);
  const client = new SettingsClient(origin);
  const res = await client.setUp(made.setup_url, TEST_PASSWORD);
  if (res.status !== 303) throw new Error(`setup failed: ${res.status} ${res.html.slice(0, 300)}`);
  return { client, user: made.user, email: made.user.email };
}
