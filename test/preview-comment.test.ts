import { describe, expect, it } from "vitest";
import { closedBody, previewBody, upsertPreviewComment } from "../.github/scripts/preview-comment.mjs";

/** An in-memory stand-in for the GitHub issues-comments API, as github-script hands it over. */
function fakeGitHub(initial: { id: number; body: string; user: { type: string } }[] = []) {
  const comments = [...initial];
  let nextId = 100;
  const github = {
    paginate: async (fn: (args: unknown) => Promise<{ data: unknown[] }>, args: unknown) => (await fn(args)).data,
    rest: {
      issues: {
        listComments: async ({ issue_number }: { issue_number: number }) => ({ data: issue_number === 7 ? comments : [] }),
        createComment: async ({ body }: { body: string }) => comments.push({ id: nextId++, body, user: { type: "Bot" } }),
        updateComment: async ({ comment_id, body }: { comment_id: number; body: string }) => {
          comments.find((c) => c.id === comment_id)!.body = body;
        },
      },
    },
  };
  const context = { repo: { owner: "acme", repo: "crm" }, payload: { pull_request: { number: 7 } } };
  return { github, context, comments };
}

const preview = {
  aliasUrl: "https://pr-7-crm-api-preview.acme.workers.dev",
  versionUrl: "https://1a2b3c4d-crm-api-preview.acme.workers.dev",
  sha: "0123456789abcdef",
  branch: "preview/pr-7",
  projectId: "rapid-haze-123",
  companyId: "3",
  smoke: "success",
  runUrl: "https://github.com/acme/crm/actions/runs/1",
};

describe("preview PR comment", () => {
  it("lists the API, docs and commit URLs, the Neon branch and how to get a token", () => {
    const body = previewBody(preview);
    expect(body).toContain("| API | https://pr-7-crm-api-preview.acme.workers.dev/api/v1 |");
    expect(body).toContain("| Docs | https://pr-7-crm-api-preview.acme.workers.dev/api/v1/docs |");
    expect(body).toContain("| This commit (0123456) | https://1a2b3c4d-crm-api-preview.acme.workers.dev/api/v1/docs |");
    expect(body).toContain("Neon branch `preview/pr-7`");
    expect(body).toContain("| Demo company | id 3 ");
    expect(body).toContain("npx neonctl connection-string preview/pr-7 --project-id rapid-haze-123");
    expect(body).toContain("token create --company 3");
    // A markdown table breaks at the first blank line: every row sits between header and end.
    const table = body.split("\n").filter((l) => l.startsWith("|"));
    expect(table).toHaveLength(2 + 6);
  });

  it("says when the smoke test failed and links the run, keeping the table intact without a company", () => {
    const body = previewBody({ ...preview, smoke: "failure", companyId: "" });
    expect(body).toContain("| Smoke test | **failure**, see [the run](https://github.com/acme/crm/actions/runs/1) |");
    expect(body).not.toContain("Demo company");
    expect(body.split("\n").filter((l) => l.startsWith("|"))).toHaveLength(2 + 5);
  });

  it("creates one comment, then edits it in place; a person's comment quoting the marker is left alone", async () => {
    const quoted = { id: 1, body: `> ${closedBody({ branch: "x" })}`, user: { type: "User" } };
    const { github, context, comments } = fakeGitHub([quoted]);
    await upsertPreviewComment({ github, context }, previewBody(preview));
    await upsertPreviewComment({ github, context }, previewBody({ ...preview, sha: "fedcba9876543210" }));
    expect(comments).toHaveLength(2);
    expect(comments[1].body).toContain("This commit (fedcba9)");
    await upsertPreviewComment({ github, context }, closedBody({ branch: "preview/pr-7" }));
    expect(comments).toHaveLength(2);
    expect(comments[1].body).toContain("Closed: the Neon branch `preview/pr-7` is deleted");
    expect(comments[0]).toBe(quoted);
  });
});
