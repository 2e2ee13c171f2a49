import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "@hono/zod-openapi";
import { afterAll, describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "..");

/** The module that builds schemas as it loads, on purpose: the document's builder, which runs at build time and imports every route. */
const BUILDS_AS_IT_LOADS = ["openapi-document.ts"];

/** Every module of src/ but tests, the bundle's stand-ins and route files (their contract is built as they load, on the route's first request). */
const modules = readdirSync(SRC, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts") && !f.startsWith("bundle-stand-ins/"))
  .filter((f) => !/export (const|function) register/.test(readFileSync(path.join(SRC, f), "utf8")))
  .sort();

// zod calls this hook with every schema it builds (`$constructor` in zod/v4/core/core.js); the innermost
// frame outside zod says who built it. Schemas that packages build (the MCP SDK's) are not counted.
type ZodConfig = { postProcessor?: (schema: unknown) => void };
const zodConfig = (globalThis as { __zod_globalConfig?: ZodConfig }).__zod_globalConfig as ZodConfig;
let builtBy: string[] = [];
zodConfig.postProcessor = () => {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  const stack = new Error().stack ?? "";
  Error.stackTraceLimit = limit;
  const frame = stack
    .split("\n")
    .slice(2)
    .map((line) => /\(?((?:\/|file:\/\/)[^()]+):\d+:\d+\)?$/.exec(line.trim()))
    .find((m) => m && !m[1].includes("/node_modules/zod/") && !m[1].endsWith("schema-once.test.ts"));
  if (frame?.[1].includes("/src/")) builtBy.push(`${path.relative(SRC, frame[1].replace("file://", ""))}:${frame[0].split(":").at(-2)}`);
};
afterAll(() => {
  zodConfig.postProcessor = undefined;
});

describe("schemas are built on first use (schema-once.ts, docs/bundle.md#routes-built-per-resource-on-first-use)", () => {
  it("sees a schema built in src/", async () => {
    builtBy = [];
    const { schemaOnce } = await import("./schema-once");
    const once = schemaOnce(() => z.object({ a: z.string() }));
    expect(builtBy).toEqual([]);
    expect(once()).toBe(once());
    expect(builtBy.length).toBeGreaterThan(0);
    expect(builtBy.every((f) => f.startsWith("http/schema-once.test.ts") || f.startsWith("http/schema-once.ts"))).toBe(true);
  });

  it("no module of src/ but a route file builds a schema as it loads", async () => {
    const found: Record<string, string[]> = {};
    expect(modules.length).toBeGreaterThan(50);
    for (const f of modules) {
      if (BUILDS_AS_IT_LOADS.includes(f)) continue;
      builtBy = [];
      await import(path.join(SRC, f));
      if (builtBy.length) found[f] = [...new Set(builtBy)];
    }
    expect(found).toEqual({});
  }, 60_000);
});
