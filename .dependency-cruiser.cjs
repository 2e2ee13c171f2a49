/**
 * Import boundaries, run by `npm run lint` (`lint:deps`) and .ci/run. The layers of src/ and the rules
 * below are also the tables of docs/architecture.md: `npm run docs:architecture` writes them there, and
 * tools/cli/architecture-doc.test.ts fails when the page and this file disagree.
 */
// dependency-cruiser has swc parse every file as TypeScript without JSX (its parse options set no `tsx`),
// so the settings pages (src/settings/*.tsx, Hono JSX) would not parse: swc reads .tsx files as TSX.
// dependency-cruiser imports the same @swc/core module object, after this config is loaded.
const swc = require("@swc/core");
const parseFileSync = swc.parseFileSync;
swc.parseFileSync = (file, options) => parseFileSync(file, String(file).endsWith(".tsx") ? { ...options, tsx: true } : options);

const TEST = "\\.(test\\.ts|test\\.tsx)$";

/**
 * The layers of src/, bottom up. A layer imports only itself and the layers below it (tests beside the
 * code excepted); each gets one rule below, named here. `paths` are folders (ending in /) or files.
 */
const LAYERS = [
  {
    rule: "db-schema-imports-nothing-of-ours",
    paths: ["src/db/schema/"],
    holds: "Drizzle tables, one file per area (`index.ts` re-exports them); drizzle-kit generates `drizzle/` from them",
  },
  {
    rule: "platform-below-the-rest",
    paths: ["src/platform/"],
    holds:
      "runtime plumbing with no HTTP: the one settings schema, the database (SQL over HTTP, WebSocket sessions, the `Db` type), the Worker's bindings, the logger, deadlines, money and dates, single-statement SQL building blocks, the SQL of lists (keyset sorts and pages, the incremental sync's watermark and totals, totals from the list counters), the Upstash client, queue messages",
  },
  {
    rule: "ratelimit-below-http",
    paths: ["src/ratelimit/"],
    holds:
      "the per-key rate limit behind one interface (`interface.ts`): the Upstash limiter and the in-memory one, the isolate's own count, reservations, the circuit",
  },
  {
    rule: "http-below-domain-and-resources",
    paths: ["src/http/"],
    holds:
      "request plumbing that knows no resource: the one error module, auth, `createAuthRoute` and the OpenAPI helpers (`wireFields` and its inverse `columnFields`), body reading and guards, pagination on the wire (the `cursor` and sync parameters, the cursor codec, the pagination object), idempotency, conditional requests, the lazily built resources",
  },
  {
    rule: "domain-below-integrations",
    paths: ["src/domain/"],
    holds: "what several resources and the accounting delivery share: totals, sizes, the client, the invoice item",
  },
  {
    rule: "integrations-below-changes",
    paths: ["src/accounting/", "src/suppliers/", "src/webhooks/"],
    holds:
      "the integrations: the accounting outbox (what a row says: `payload.ts`) and its QuickBooks delivery; the two supplier adapters; webhook events (what a resource declares, `events-catalog.ts`), their signed delivery and the OpenAPI `webhooks` section. Each has its queue consumer and cron pass",
  },
  {
    rule: "changes-below-routes",
    paths: ["src/changes/"],
    holds:
      "how a write is written: a route's statement with its outbox rows and webhook events (`effects.ts`), the optimistic-then-locked retry, publishing after commit (`change.ts`)",
  },
  {
    rule: "routes-below-the-resource-list",
    paths: ["src/routes/"],
    holds:
      "one folder per resource: one file per route (its contract and handler), `schema.ts`, `queries.ts`, `index.ts` (the router), `resource.ts` (its descriptor), `events.ts` (its webhook events), tests beside them; an order's contents are sub-folders of `orders/`",
  },
  {
    rule: "the-resource-list-below-the-app",
    paths: ["src/resources.ts"],
    holds: "the one list of resources; the event catalog and the renderers come from it",
  },
  {
    rule: "mcp-below-the-app",
    paths: ["src/mcp/"],
    holds:
      "the remote MCP endpoint (`/api/v1/mcp`): one tool per operation of the OpenAPI document, each run as a request through the app (the app passes it its `fetch`)",
  },
  {
    rule: "oauth-below-settings",
    paths: ["src/oauth/"],
    holds:
      "the OAuth 2.1 authorization server (metadata, client registration, authorize, token, revoke) and the grants it keeps; the settings area's consent and connected-apps pages call it",
  },
  {
    rule: "settings-below-the-app",
    paths: ["src/settings/"],
    holds:
      "the developers' settings area under `/settings` (server-rendered pages: sign-in, sessions, setup links, users, account; the frame other pages build on: layout, guards, audit), loaded on its first request (`mount.ts`)",
  },
  {
    rule: "the-document-below-the-app",
    paths: ["src/openapi-document.ts"],
    holds:
      "the OpenAPI document, built from every resource's contracts and event declarations at build time (`npm run openapi:build`) and by the tools; the Worker serves the build's output and never imports it",
  },
  {
    rule: "only-the-entry-imports-the-app",
    paths: ["src/app.ts", "src/index.ts", "src/build-output.d.ts"],
    holds:
      "the app (middleware, the resources under `/api/v1`, the OpenAPI document built at build time) and the Worker entry (`fetch`, `queue`, `scheduled`); the build's output for the Worker, typed (`build-output.d.ts`)",
  },
];

/** `^(a|b)` for paths as written in LAYERS (folders match below them, files exactly). */
const pathsRegex = (paths) => `^(${paths.map((p) => p.replace(/\./g, "\\.") + (p.endsWith("/") ? "" : "$")).join("|")})`;

/** Layer i imports only layers 0..i (of src/): one rule per layer but the top, which the entry rule covers. */
const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: layer.rule,
  severity: "error",
  comment:
    `${layer.paths.join(", ")} ${layer.paths.length > 1 ? "import only themselves" : "imports only itself"}` +
    (i ? ` and the layers below (${LAYERS.slice(0, i).flatMap((l) => l.paths).join(", ")}).` : "."),
  from: { path: pathsRegex(layer.paths), pathNot: TEST },
  to: { path: "^src/", pathNot: pathsRegex(LAYERS.slice(0, i + 1).flatMap((l) => l.paths)) },
}));

const config = {
  forbidden: [
    ...layerRules,
    {
      name: "only-the-entry-imports-the-app",
      severity: "error",
      comment: "Only src/index.ts (and tests) import src/app.ts, which builds the whole app when loaded; tools import constants from src/http/.",
      from: { path: "^(src|tools)/", pathNot: `^src/index\\.ts$|${TEST}` },
      to: { path: "^src/app\\.ts$" },
    },
    {
      name: "the-worker-serves-the-built-document",
      comment:
        "The Worker serves the OpenAPI document and the MCP tools made at build time (crm-build:openapi): no module of src/ imports the builder, so no isolate builds them.",
      severity: "error",
      from: { path: "^src/", pathNot: `^src/openapi-document\\.ts$|${TEST}` },
      to: { path: "^src/openapi-document\\.ts$" },
    },
    {
      name: "the-worker-imports-tables-from-their-files",
      severity: "error",
      comment:
        "src/ imports each table from its file (src/db/schema/clients.ts), not from the index that re-exports them all: a route's first request builds only the tables it reads (drizzle builds a table's columns when its module loads). Types may come from the index (platform/db.ts: the Db type's schema, `import type * as schema`, which dependency-cruiser does not see as type-only).",
      from: { path: "^src/", pathNot: `^src/platform/db\\.ts$|${TEST}` },
      to: { path: "^src/db/schema/index\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "routes-do-not-import-each-other",
      severity: "error",
      comment: "A resource folder imports no other resource's folder (its own sub-folders are part of it); what two share goes to src/domain/.",
      from: { path: "^src/routes/([^/]+)/", pathNot: TEST },
      to: { path: "^src/routes/", pathNot: "^src/routes/$1/" },
    },
    {
      name: "mcp-runs-operations-through-the-app",
      severity: "error",
      comment: "A tool runs its operation as a request through the app (src/mcp/server.ts): no second implementation, so src/mcp/ reaches no resource, domain, change or integration code.",
      from: { path: "^src/mcp/", pathNot: TEST },
      to: { path: "^src/(domain|routes|changes|accounting|suppliers|webhooks)/|^src/resources\\.ts$" },
    },
    {
      name: "routes-write-through-changes",
      severity: "error",
      comment:
        "Routes reach outbox rows, webhook events and deliveries only through src/changes/ (list counters: statement triggers); of src/accounting/ and src/webhooks/ they read only what those rows say (accounting/payload.ts, webhooks/events-catalog.ts), the webhook URL rules and the events feed's reads (webhooks/feed.ts).",
      from: { path: "^src/routes/", pathNot: TEST },
      to: { path: "^src/(accounting|webhooks)/", pathNot: "^src/accounting/payload\\.ts$|^src/webhooks/(events-catalog|url|feed)\\.ts$" },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycles: they hide which module is the lower layer.",
      from: {},
      to: { circular: true },
    },
    {
      name: "worker-never-imports-tooling",
      severity: "error",
      comment: "src/ (tests beside the code excepted) never imports tools/ or test/: the Worker bundle carries no CLI, local stack or test code.",
      from: { path: "^src/", pathNot: TEST },
      to: { path: "^(tools|test)/" },
    },
    {
      name: "worker-without-node-builtins",
      severity: "error",
      comment: "src/ imports no node: module: the Worker runs without nodejs_compat (wrangler.toml).",
      from: { path: "^src/", pathNot: TEST },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "worker-never-imports-the-sdk",
      severity: "error",
      comment: "The typed client is for integrators; the Worker bundle carries neither it nor openapi-fetch.",
      from: { path: "^src/" },
      to: { path: "^sdk/|openapi-fetch|openapi-typescript" },
    },
    {
      name: "sdk-stands-alone",
      severity: "error",
      comment: "sdk/ ships on its own: only its tests look outside it.",
      from: { path: "^sdk/", pathNot: TEST },
      to: { path: "^(src|tools|test)/" },
    },
    {
      name: "no-package-internals-by-path",
      severity: "error",
      comment: "A package is imported by its name and its published exports: a file path into node_modules breaks on an upgrade.",
      from: {},
      to: { path: "(^|/)node_modules/", dependencyTypes: ["local"] },
    },
    {
      name: "bundle-stand-ins-are-only-aliased",
      severity: "error",
      comment: "src/bundle-stand-ins/ replaces packages' modules in the bundle through the build's aliases (tools/cli/worker-build.ts); no module of ours imports them.",
      from: { path: "^src/", pathNot: "^src/bundle-stand-ins/" },
      to: { path: "^src/bundle-stand-ins/" },
    },
    {
      name: "bundle-stand-ins-stand-alone",
      severity: "error",
      comment: "A bundle stand-in passes on names of the package it replaces, or throws: it imports nothing else of ours.",
      from: { path: "^src/bundle-stand-ins/" },
      to: { path: "^src/", pathNot: "^src/bundle-stand-ins/" },
    },
    {
      name: "local-stack-stands-alone",
      severity: "error",
      comment: "tools/local/ (the stand-ins for Neon and Upstash) imports nothing from tools/ops/ or tools/cli/.",
      from: { path: "^tools/local/", pathNot: TEST },
      to: { path: "^tools/(ops|cli)/" },
    },
    {
      name: "ops-below-cli",
      severity: "error",
      comment: "tools/ops/ holds the operations, tools/cli/ the entry points that call them: ops never imports cli.",
      from: { path: "^tools/ops/", pathNot: TEST },
      to: { path: "^tools/cli/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with; swc parses TypeScript too.
    parser: "swc",
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(dist|drizzle)/" },
  },
};

// For the docs (tools/cli/architecture-doc.ts). Not enumerable: dependency-cruiser validates the config's own keys.
Object.defineProperty(config, "layers", { value: LAYERS });

module.exports = config;
