import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkInputs, checkZodNames } from "./bundle-report";

const input = (...imports: string[]) => ({ imports: imports.map((path) => ({ path })) });

/** A metafile as esbuild writes it for a bundle where every wrangler.toml alias applied. */
const good = () => ({
  inputs: {
    "src/index.ts": input("src/app.ts"),
    "src/app.ts": input("node_modules/@hono/zod-openapi/dist/index.mjs", "node_modules/zod/v4/classic/external.js"),
    "node_modules/@hono/zod-openapi/dist/index.mjs": input("src/bundle-stand-ins/zod-namespace.ts"),
    "src/platform/config.ts": input("src/bundle-stand-ins/zod-namespace.ts"),
    "src/bundle-stand-ins/zod-namespace.ts": input("src/bundle-stand-ins/zod-names.ts"),
    "src/bundle-stand-ins/zod-names.ts": input("node_modules/zod/v4/index.js"),
    "node_modules/zod/v4/index.js": input("node_modules/zod/v4/classic/external.js"),
    "node_modules/zod/v4/classic/external.js": input("src/bundle-stand-ins/zod-locales.ts", "src/bundle-stand-ins/zod-unbundled.ts"),
    "node_modules/zod/v4/core/index.js": input("src/bundle-stand-ins/zod-locales.ts", "src/bundle-stand-ins/zod-unbundled.ts"),
    "node_modules/zod/v4/classic/schemas.js": input("node_modules/zod/v4/core/json-schema-processors.js"),
    "node_modules/zod/v4/core/json-schema-processors.js": input("src/bundle-stand-ins/zod-unbundled.ts"),
    "src/bundle-stand-ins/zod-unbundled.ts": input(),
    "src/bundle-stand-ins/zod-locales.ts": input("node_modules/zod/v4/locales/en.js"),
    "node_modules/zod/v4/locales/en.js": input(),
    "node_modules/drizzle-orm/pg-core/table.js": input("src/bundle-stand-ins/drizzle-column-builders.ts"),
    "src/bundle-stand-ins/drizzle-column-builders.ts": input(),
    "src/db/schema/clients.ts": input("src/bundle-stand-ins/drizzle-pg-core.ts"),
    "node_modules/drizzle-orm/neon-http/session.js": input("src/bundle-stand-ins/drizzle-pg-core.ts"),
    "src/bundle-stand-ins/drizzle-pg-core.ts": input("node_modules/drizzle-orm/pg-core/table.js"),
    "node_modules/drizzle-orm/pg-core/dialect.js": input("src/bundle-stand-ins/drizzle-pg-columns.ts"),
    "src/bundle-stand-ins/drizzle-pg-columns.ts": input(),
    "node_modules/@upstash/ratelimit/dist/index.mjs": input("src/bundle-stand-ins/no-rate-limit-analytics.ts"),
    "src/bundle-stand-ins/no-rate-limit-analytics.ts": input(),
    "node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.js": input("src/bundle-stand-ins/mcp-sdk-ajv.ts"),
    "src/bundle-stand-ins/mcp-sdk-ajv.ts": input(),
  } as Record<string, { imports: { path: string }[] }>,
});

describe("bundle input checks", () => {
  it("accepts a bundle with the stand-ins in place", () => {
    expect(checkInputs(good())).toEqual([]);
  });

  it("reports tooling in the bundle", () => {
    const meta = good();
    meta.inputs["tools/ops/migrate.ts"] = input();
    expect(checkInputs(meta)).toEqual(["the bundle contains tools/ops/migrate.ts"]);
  });

  it("reports a node: import (the Worker runs without nodejs_compat)", () => {
    const meta = good();
    meta.inputs["src/platform/config.ts"] = input("src/bundle-stand-ins/zod-namespace.ts", "node:crypto");
    expect(checkInputs(meta)).toEqual(["src/platform/config.ts imports node:crypto, which the Worker's runtime does not have"]);
  });

  it("reports an alias that did not apply: the real module in, the stand-in out", () => {
    const meta = good();
    delete meta.inputs["src/bundle-stand-ins/zod-locales.ts"];
    meta.inputs["node_modules/zod/v4/locales/index.js"] = input("node_modules/zod/v4/locales/de.js");
    meta.inputs["node_modules/zod/v4/locales/de.js"] = input();
    expect(checkInputs(meta)).toEqual([
      "src/bundle-stand-ins/zod-locales.ts is not in the bundle: its [alias] in wrangler.toml did not apply",
      "the bundle contains node_modules/zod/v4/locales/index.js, which src/bundle-stand-ins/zod-locales.ts stands in for",
      "the bundle contains node_modules/zod/v4/locales/de.js, which src/bundle-stand-ins/zod-locales.ts stands in for",
    ]);
  });

  it("reports a stand-in reached from another package (an alias key matching someone else's import)", () => {
    const meta = good();
    meta.inputs["node_modules/other/lib/index.js"] = input("src/bundle-stand-ins/zod-locales.ts");
    expect(checkInputs(meta)).toEqual(["node_modules/other/lib/index.js imports src/bundle-stand-ins/zod-locales.ts"]);
  });
});

describe("zod namespace stand-in check", () => {
  const root = path.resolve(import.meta.dirname, "../..");

  it("finds every run-time z.<name> of the Worker's code in the stand-in", () => {
    const files = execFileSync("git", ["ls-files", "src/**.ts"], { cwd: root, encoding: "utf8" })
      .split("\n")
      .filter((f) => f && !f.endsWith(".test.ts"));
    const sources = new Map(files.map((f) => [f, readFileSync(path.join(root, f), "utf8")]));
    expect(checkZodNames(sources)).toEqual([]);
  });

  it("reports a name the stand-in lacks, read through either import, and ignores type-only uses", () => {
    const sources = new Map([
      [
        "src/a.ts",
        'import { z } from "@hono/zod-openapi";\nexport const s = z.string();\nexport const d = z\n  .iso.datetime();\nexport type T = z.infer<typeof s>;\nexport const f = (i: z.core.$ZodIssue) => i;\n',
      ],
      ["src/b.ts", 'import { z } from "zod";\n// z.email() in a comment\nexport const e = z.email();\n'],
      ["src/c.ts", 'import type { z } from "@hono/zod-openapi";\nexport type N = z.ZodNumber;\n'],
      ["src/d.ts", 'import { z } from "zod";\nconst name = "string";\nexport const s = z[name];\n'],
    ]);
    expect(checkZodNames(sources, ["string"])).toEqual([
      "src/a.ts reads z.iso, which src/bundle-stand-ins/zod-names.ts does not export",
      "src/b.ts reads z.email, which src/bundle-stand-ins/zod-names.ts does not export",
      "src/d.ts reads z[...]: zod's namespace stand-in holds only the names it lists",
    ]);
  });
});
