import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { SCHEMA_FILE } from "./generate";

const dir = mkdtempSync(path.join(tmpdir(), "sdk-schema-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Where two texts part, for a readable failure instead of a 4000-line diff. */
function firstDifference(a: string, b: string): string {
  const [la, lb] = [a.split("\n"), b.split("\n")];
  const i = la.findIndex((line, n) => line !== lb[n]);
  const at = i === -1 ? la.length : i;
  return `line ${at + 1}: committed ${JSON.stringify(la[at])}, generated ${JSON.stringify(lb[at])}`;
}

describe("sdk/schema.d.ts", () => {
  it("is what `npm run sdk:generate` writes from the document the Worker serves (byte for byte)", async () => {
    const out = path.join(dir, "schema.d.ts");
    // The real command, so the test covers what a developer runs.
    await promisify(execFile)(process.execPath, ["--import", "tsx", "tools/cli/sdk-generate.ts", out], { timeout: 80_000 });
    const committed = readFileSync(SCHEMA_FILE);
    const generated = readFileSync(out);
    if (!committed.equals(generated)) {
      expect.fail(
        `sdk/schema.d.ts has drifted from the OpenAPI document: run \`npm run sdk:generate\` and commit it (${firstDifference(committed.toString(), generated.toString())})`,
      );
    }
    // The document's operations are all there, under their operationIds.
    expect(generated.toString()).toMatch(/^ {4}createOrder: \{$/m);
    // tsx start-up, the document and openapi-typescript: about 4 s alone, much more on a loaded machine.
  }, 90_000);
});
