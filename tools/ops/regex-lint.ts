/**
 * The ReDoS lint (`npm run lint:regex`, part of `npm run lint`): every regular expression in the Worker's
 * source is checked by recheck (a ReDoS checker that proves a pattern linear or gives an attack string)
 * and must be safe: no exponential and no polynomial (quadratic or worse) matching time, counting the
 * retries at every start position of an unanchored pattern (`/[^/]*@/` on a long path is quadratic
 * though each attempt alone is linear). The Worker runs its patterns on what callers send (paths, query
 * strings, headers, bodies, log fields), so the lint holds every one of them to that, tests excepted.
 *
 * Patterns are found by parsing the TypeScript (swc, as dependency-cruiser does): regular expression
 * literals, and `RegExp(…)` / `new RegExp(…)` whose pattern is a string literal. A pattern built at
 * run time cannot be checked here: it is reported unless the line before says why it is safe with a
 * `// regex-lint: <reason>` comment (and a test checks the built pattern with `checkPattern`).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseSync } from "@swc/core";
import { checkSync } from "recheck";

const root = path.resolve(import.meta.dirname, "../..");

/** A pattern found in a source file. `pattern` is undefined for one built at run time. */
export interface FoundPattern {
  file: string;
  line: number;
  pattern?: string;
  flags: string;
  /** The `// regex-lint:` reason on the line before, for a pattern built at run time. */
  reason?: string;
}

export interface Finding {
  file: string;
  line: number;
  message: string;
}

/** What recheck says of a pattern: undefined when it is safe, else why not (with an attack string when it has one). */
export function checkPattern(pattern: string, flags = ""): string | undefined {
  // The automaton checker proves a verdict (the fuzzing one samples, and can pass or fail a pattern by
  // chance); it takes no lookaround or back-reference, so such a pattern is reported. Bounded, so one
  // pattern cannot stall the lint; a pattern recheck cannot decide in time is reported, not passed.
  const result = checkSync(pattern, flags, { checker: "automaton", timeout: 60_000 });
  if (result.status === "safe") return undefined;
  if (result.status === "vulnerable") {
    const degree = result.complexity.type === "polynomial" ? `polynomial, degree ${result.complexity.degree}` : "exponential";
    return `${degree} matching time (recheck; attack string: ${result.attack.pattern})`;
  }
  return `recheck could not prove it safe (${result.status}${result.error ? `: ${result.error.kind}` : ""})`;
}

type Node = { type?: string; [key: string]: unknown };

/** Every regular expression in `source` (TypeScript): literals and `RegExp` calls. */
export function findPatterns(source: string, file: string): FoundPattern[] {
  // swc's spans are byte offsets in a source map shared by every parse: the empty statement put first
  // marks where this file starts.
  const module = parseSync(`;${source}`, { syntax: "typescript", target: "es2022" });
  const bytes = Buffer.from(`;${source}`);
  const base = module.body[0].span.start;
  const lines = source.split("\n");
  const lineOf = (node: Node) =>
    bytes
      .subarray(0, (node.span as { start: number }).start - base)
      .toString()
      .split("\n").length;
  const found: FoundPattern[] = [];
  const visit = (node: unknown) => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach(visit);
    const n = node as Node;
    if (n.type === "RegExpLiteral") found.push({ file, line: lineOf(n), pattern: n.pattern as string, flags: n.flags as string });
    if ((n.type === "NewExpression" || n.type === "CallExpression") && (n.callee as Node)?.type === "Identifier") {
      if ((n.callee as { value: string }).value === "RegExp") {
        const [pattern, flags] = ((n.arguments as { expression: Node }[]) ?? []).map((a) => a.expression);
        const line = lineOf(n);
        const constant = (e: Node | undefined) =>
          e?.type === "StringLiteral"
            ? (e.value as string)
            : e?.type === "TemplateLiteral" && !(e.expressions as unknown[]).length
              ? (e.quasis as { cooked: string }[])[0].cooked
              : undefined;
        const reason = /\/\/\s*regex-lint:\s*(\S.*)$/.exec(lines[line - 2] ?? "")?.[1];
        found.push({ file, line, pattern: constant(pattern), flags: flags ? (constant(flags) ?? "") : "", reason });
      }
    }
    for (const [key, value] of Object.entries(n)) if (key !== "span") visit(value);
  };
  visit(module.body);
  return found;
}

/** The TypeScript files under `dir` (relative to the repository), tests left out. */
export function sourceFiles(dir = "src"): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map((f) => path.join(dir, f))
    .sort();
}

/** The lint of one file's text: one finding per pattern that is not safe (`verdicts` caches recheck's answers by pattern). */
export function lintSource(
  source: string,
  file: string,
  verdicts = new Map<string, string | undefined>(),
): { checked: number; findings: Finding[] } {
  const findings: Finding[] = [];
  const found = findPatterns(source, file);
  for (const p of found) {
    if (p.pattern === undefined) {
      if (!p.reason)
        findings.push({
          file,
          line: p.line,
          message:
            "a pattern built at run time cannot be checked: use a literal, or say why it is safe in a `// regex-lint:` comment on the line before",
        });
      continue;
    }
    const key = `/${p.pattern}/${p.flags}`;
    if (!verdicts.has(key)) verdicts.set(key, checkPattern(p.pattern, p.flags));
    const verdict = verdicts.get(key);
    if (verdict) findings.push({ file, line: p.line, message: `${key}: ${verdict}` });
  }
  return { checked: found.length, findings };
}

/** The lint over `files` (relative to the repository). */
export function lintPatterns(files = sourceFiles()): { checked: number; findings: Finding[] } {
  const verdicts = new Map<string, string | undefined>();
  const results = files.map((file) => lintSource(readFileSync(path.join(root, file), "utf8"), file, verdicts));
  return { checked: results.reduce((n, r) => n + r.checked, 0), findings: results.flatMap((r) => r.findings) };
}
