import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEV_VARS, projectRoot, WORKER_VARS } from "./config";

describe("settings", () => {
  it("every setting .dev.vars.example documents is either handed to the Worker by npm run dev or is npm run dev's own", () => {
    const documented = [...readFileSync(path.join(projectRoot, ".dev.vars.example"), "utf8").matchAll(/^# ([A-Z][A-Z0-9_]+)=/gm)].map(
      (m) => m[1],
    );
    expect([...new Set(documented)].sort()).toEqual([...WORKER_VARS, ...DEV_VARS].sort());
  });

  it("the Worker's bindings are the Worker settings (no setting the Worker reads is left out)", () => {
    const bindings = readFileSync(path.join(projectRoot, "src/platform/env.ts"), "utf8");
    const declared = [...bindings.matchAll(/^\s+([A-Z][A-Z0-9_]+)\??: string;/gm)].map((m) => m[1]);
    expect(declared.sort()).toEqual([...WORKER_VARS].sort());
  });
});
