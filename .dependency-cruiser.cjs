/**
 * Import boundaries (run by .ci/run as `npm run lint:deps`). Layers, bottom up:
 *   src/db/schema, src/platform → src/http → src/domain → src/accounting, src/suppliers, src/webhooks → src/routes → src/app.ts, src/index.ts
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
      name: "http-below-domain-and-resources",
      severity: "error",
      comment: "http/ is request plumbing (errors, auth, guards, OpenAPI helpers); it knows no resource.",
      from: { path: "^src/http/" },
      to: { path: "^src/(domain|routes|accounting|suppliers|webhooks)/|^src/(app|index)\\.ts$" },
    },
    {
      name: "domain-below-resources",
      severity: "error",
      comment: "domain/ is what several resources and the accounting delivery share.",
      from: { path: "^src/domain/", pathNot: TEST },
      to: { path: "^src/(routes|accounting|suppliers|webhooks)/|^src/(app|index)\\.ts$" },
    },
    {
      name: "integrations-below-routes",
      severity: "error",
      comment: "accounting/ and suppliers/ serve routes; they never import one.",
      from: { path: "^src/(accounting|suppliers|webhooks)/", pathNot: TEST },
      to: { path: "^src/routes/|^src/(app|index)\\.ts$" },
    },
    {
      name: "routes-do-not-import-each-other",
      severity: "error",
      comment: "Share through domain/ instead.",
      from: { path: "^src/routes/([^/]+)/", pathNot: TEST },
      to: { path: "^src/routes/", pathNot: "^src/routes/$1/" },
    },
    {
      name: "mcp-runs-operations-through-the-app",
      severity: "error",
      comment: "A tool runs its operation as a request through the app (src/mcp/server.ts): no second implementation.",
      from: { path: "^src/mcp/", pathNot: TEST },
      to: { path: "^src/(domain|routes|accounting|suppliers|webhooks)/|^src/(app|index)\\.ts$" },
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
    exclude: { path: "^(node_modules|dist|drizzle)/" },
  },
};
