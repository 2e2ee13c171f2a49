/**
 * `npm run lint:regex` (part of `npm run lint`): every regular expression in src/ proved free of
 * super-linear matching time by recheck, or the lint fails naming each one (tools/ops/regex-lint.ts).
 */
import { lintPatterns } from "../ops/regex-lint";

const { checked, findings } = lintPatterns();
for (const f of findings) console.error(`${f.file}:${f.line}  ${f.message}`);
if (findings.length) {
  console.error(`✖ ${findings.length} of ${checked} regular expressions in src/ may take super-linear time`);
  process.exit(1);
}
console.log(`✔ ${checked} regular expressions in src/, each linear (recheck)`);
