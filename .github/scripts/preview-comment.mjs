// The pull request's one preview comment, used by both jobs of preview.yml through
// actions/github-script: found by its marker and edited in place, so a PR never collects a
// comment per push.

const MARKER = "<!-- crm-api-preview -->";

/**
 * @param {{ aliasUrl: string, versionUrl: string, sha: string, branch: string, projectId: string,
 *           companyId: string, smoke: string, runUrl: string }} p
 */
export function previewBody(p) {
  const api = `${p.aliasUrl}/api/v1`;
  const smoke =
    p.smoke === "success"
      ? "passed: docs page, OpenAPI document, 401 without a token, authenticated request through the database and the rate limiter"
      : `**${p.smoke}**, see [the run](${p.runUrl})`;
  const rows = [
    ["API", api],
    ["Docs", `${api}/docs`],
    [`This commit (${p.sha.slice(0, 7)})`, p.versionUrl ? `${p.versionUrl}/api/v1/docs` : "n/a"],
    ["Database", `Neon branch \`${p.branch}\`, migrated`],
    ...(p.companyId ? [["Demo company", `id ${p.companyId} (Demo Print Shop, demo data)`]] : []),
    ["Smoke test", smoke],
  ];
  return [
    MARKER,
    "### Preview of this pull request",
    "",
    "| | |",
    "| --- | --- |",
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
    "",
    "A token for the demo company:",
    "```sh",
    `DATABASE_URL="$(npx neonctl connection-string ${p.branch} --project-id ${p.projectId})" \\`,
    `  npm run admin -- token create --company ${p.companyId || "<id>"}`,
    "```",
  ].join("\n");
}

/** @param {{ branch: string }} p */
export function closedBody(p) {
  return [
    MARKER,
    "### Preview of this pull request",
    "",
    `Closed: the Neon branch \`${p.branch}\` is deleted, so the preview URLs no longer reach a database.`,
  ].join("\n");
}

/**
 * Creates the comment, or edits the one this workflow wrote before.
 * @param {{ github: any, context: any }} script the github-script globals
 * @param {string} body
 */
export async function upsertPreviewComment({ github, context }, body) {
  const { owner, repo } = context.repo;
  const issue_number = context.payload.pull_request.number;
  const comments = await github.paginate(github.rest.issues.listComments, { owner, repo, issue_number, per_page: 100 });
  const previous = comments.find((c) => c.user?.type === "Bot" && c.body?.includes(MARKER));
  if (previous) await github.rest.issues.updateComment({ owner, repo, comment_id: previous.id, body });
  else await github.rest.issues.createComment({ owner, repo, issue_number, body });
}
