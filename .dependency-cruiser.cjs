/**
 * Import boundaries (run by .ci/run as `npm run lint:deps`). Layers, bottom up:
 *   src/db/schema, src/platform → src/ratelimit → src/http → src/domain → src/accounting, src/suppliers, src/webhooks → src/changes
 *   → src/routes → src/resources.ts → src/app.ts, src/index.ts
 * tools/ (Node only) may import src/; src/ never imports tools/ or test/ (tests beside the code excepted).
 * sdk/ is the typed client for integrators: the Worker never imports it, and it imports nothing of ours.
 */
const TEST = "\\.test\\.ts$";
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Cycles hide which module is the lower layer.",
      from: {},
      to: { circular: true },
    },
    {
      name: "worker-never-imports-tooling",
      severity: "error",
      comment: "The Worker bundle must not carry the CLI, the local stack or test code.",
      from: { path: "^src/", pathNot: TEST },
      to: { path: "^(tools|test)/" },
    },
    {
      name: "worker-without-node-builtins",
      severity: "error",
      comment: "The Worker runs without nodejs_compat (wrangler.toml): no node: module exists there.",
      from: { path: "^src/", pathNot: TEST },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "worker-never-imports-the-sdk",
      severity: "error",
      comment: "The typed client is for integrators; the Worker bundle must not carry it or openapi-fetch.",
      from: { path: "^src/" },
      to: { path: "^sdk/|openapi-fetch|openapi-typescript" },
    },
    {
      name: "sdk-stands-alone",
      severity: "error",
      comment: "The client ships on its own: only its tests look outside sdk/.",
      from: { path: "^sdk/", pathNot: TEST },
      to: { path: "^(src|tools|test)/" },
    },
    {
      name: "no-package-internals-by-path",
      severity: "error",
      comment: "A package is imported by its name and its published exports; a file path into node_modules breaks on an upgrade.",
      from: {},
      to: { path: "(^|/)node_modules/", dependencyTypes: ["local"] },
    },
    {
      name: "bundle-stand-ins-are-only-aliased",
      severity: "error",
      comment: "src/bundle-stand-ins/ replaces packages' modules in the bundle through wrangler.toml [alias]; the Worker never imports them.",
      from: { path: "^src/", pathNot: "^src/bundle-stand-ins/" },
      to: { path: "^src/bundle-stand-ins/" },
    },
    {
      name: "bundle-stand-ins-stand-alone",
      severity: "error",
      comment: "A stand-in passes on names from the package it replaces, or throws; it needs nothing of ours.",
      from: { path: "^src/bundle-stand-ins/" },
      to: { path: "^src/", pathNot: "^src/bundle-stand-ins/" },
    },
    {
      name: "platform-is-the-bottom-layer",
      severity: "error",
      comment: "platform/ (db, env, logger, money, dates…) imports only itself and the table schema.",
      from: { path: "^src/platform/" },
      to: { path: "^src/", pathNot: "^src/(platform|db/schema)/" },
    },
    {
      name: "db-schema-imports-nothing-of-ours",
      severity: "error",
      from: { path: "^src/db/schema/" },
      to: { path: "^src/", pathNot: "^src/db/schema/" },
    },
    {
      name: "ratelimit-below-http",
      severity: "error",
      comment: "ratelimit/ is the per-key limiter behind an interface; request handling (http/auth.ts) uses it, it knows no request.",
      from: { path: "^src/ratelimit/", pathNot: TEST },
      to: { path: "^src/", pathNot: "^src/(ratelimit|platform)/" },
    },
    {
      name: "http-below-domain-and-resources",
      severity: "error",
      comment: "http/ is request plumbing (errors, auth, guards, OpenAPI helpers); it knows no resource.",
      from: { path: "^src/http/" },
      to: { path: "^src/(domain|routes|accounting|suppliers|webhooks|changes)/|^src/(app|index|resources)\\.ts$" },
    },
    {
      name: "domain-below-resources",
      severity: "error",
      comment: "domain/ is what several resources and the accounting delivery share.",
      from: { path: "^src/domain/", pathNot: TEST },
      to: { path: "^src/(routes|accounting|suppliers|webhooks|changes)/|^src/(app|index|resources)\\.ts$" },
    },
    {
      name: "integrations-below-changes",
      severity: "error",
      comment: "accounting/, suppliers/ and webhooks/ serve the change layer and the routes; they never import either.",
      from: { path: "^src/(accounting|suppliers|webhooks)/", pathNot: TEST },
      to: { path: "^src/(changes|routes)/|^src/(app|index|resources)\\.ts$" },
    },
    {
      name: "changes-below-routes",
      severity: "error",
      comment: "changes/ is how a write is written, for every resource; it knows none.",
      from: { path: "^src/changes/", pathNot: TEST },
      to: { path: "^src/routes/|^src/(app|index|resources)\\.ts$" },
    },
    {
      name: "routes-write-through-changes",
      severity: "error",
      comment:
        "A route says what it changes; the change layer writes its outbox rows and webhook events (counters: statement triggers) " +
        "and hands them on after commit. Routes may read what those rows say (accounting/payload.ts, the event declarations).",
      from: { path: "^src/routes/", pathNot: TEST },
      to: { path: "^src/(accounting|webhooks)/", pathNot: "^src/accounting/payload\\.ts$|^src/webhooks/(events-catalog|url)\\.ts$" },
    },
    {
      name: "routes-do-not-import-each-other",
      severity: "error",
      comment: "Share through domain/ instead.",
      from: { path: "^src/routes/([^/]+)/", pathNot: TEST },
      to: { path: "^src/routes/", pathNot: "^src/routes/$1/" },
    },
    {
      name: "routes-below-the-resource-list",
      severity: "error",
      comment: "src/resources.ts lists every resource (and builds the event catalog from them); a resource gets what it needs from its loader.",
      from: { path: "^src/routes/", pathNot: TEST },
      to: { path: "^src/(resources|index)\\.ts$" },
    },
    {
      name: "only-the-entry-imports-the-app",
      severity: "error",
      comment: "app.ts builds the whole app when loaded; tools import constants from http/ instead.",
      from: { path: "^(src|tools)/", pathNot: `^src/index\\.ts$|${TEST}` },
      to: { path: "^src/app\\.ts$" },
    },
    {
      name: "local-stack-stands-alone",
      severity: "error",
      comment: "tools/local/ (the stand-ins for Neon and Upstash) knows nothing of the CLI or the operations.",
      from: { path: "^tools/local/", pathNot: TEST },
      to: { path: "^tools/(ops|cli)/" },
    },
    {
      name: "ops-below-cli",
      severity: "error",
      comment: "tools/ops/ holds the operations; tools/cli/ holds the entry points that call them.",
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
