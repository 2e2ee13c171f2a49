/**
 * Compares the OpenAPI document of this tree with the one of a git revision, byte for byte: the check a
 * refactor that must not change the contract runs. The revision's tree is written to a temporary folder
 * (`git archive`, with this tree's node_modules linked in) and both documents are made as
 * `npm run openapi` makes them. Exit 0 when they are identical, 1 with the first difference otherwise.
 * `npm run openapi:compare -- <revision>` (for example the commit a branch started from).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { revisionTree } from "../ops/revision-tree";

const revision = process.argv[2];
if (!revision) throw new Error("usage: npm run openapi:compare -- <git revision>");

const root = path.resolve(import.meta.dirname, "../..");
const tmp = mkdtempSync(path.join(tmpdir(), "openapi-compare-"));
const tsx = path.join(root, "node_modules/.bin/tsx");

/** The document `tools/cli/openapi.ts` writes when run in `tree`. */
function documentOf(tree: string, file: string): Buffer {
  execFileSync(tsx, ["tools/cli/openapi.ts", file], { cwd: tree, stdio: ["ignore", "ignore", "inherit"] });
  return readFileSync(file);
}

try {
  const base = revisionTree(root, revision, path.join(tmp, "tree"));
  const before = documentOf(base, path.join(tmp, "before.json"));
  const after = documentOf(root, path.join(tmp, "after.json"));
  if (before.equals(after)) {
    console.log(`identical: the OpenAPI document of this tree and of ${revision} (${after.length} bytes)`);
  } else {
    let at = 0;
    while (at < Math.min(before.length, after.length) && before[at] === after[at]) at++;
    const excerpt = (doc: Buffer) => JSON.stringify(doc.subarray(Math.max(0, at - 120), at + 120).toString());
    console.log(`different: first difference at byte ${at} (${before.length} bytes at ${revision}, ${after.length} here)`);
    console.log(`${revision}: ${excerpt(before)}`);
    console.log(`this tree: ${excerpt(after)}`);
    process.exitCode = 1;
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
