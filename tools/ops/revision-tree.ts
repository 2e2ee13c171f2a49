import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";

/**
 * The tracked files of git `revision` written to `dir` (`git archive`), with `root`'s node_modules
 * linked in: another revision to build or run beside this checkout, leaving the repository as it was.
 */
export function revisionTree(root: string, revision: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  execFileSync("sh", ["-c", 'git archive "$1" | tar -x -C "$2"', "sh", revision, dir], { cwd: root });
  symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}
