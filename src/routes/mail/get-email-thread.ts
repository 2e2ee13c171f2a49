import { z } from "@hono/zod-openapi";
import { notFound } from "../../http/errors";
import { ifNoneMatchHeader, notModified, notModifiedResponse, withEtag } from "../../http/etag";
import { jsonWithRaw } from "../../http/exact-json";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { findLiveEmailThread } from "./queries";
import { accountEmail, type EmailThreadEnvelope, emailThreadEnvelopeSchema, legacyThreadIdParam, serializeEmailThread } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/mail/email-threads/{legacyThreadId}",
  operationId: "getEmailThread",
  tags: ["Mail"],
  summary: "Get a stored email thread",
  description:
    "The thread stored for the caller's company, the mailbox `account_email` (required, a valid address, matched case-insensitively) " +
    "and the legacy thread id. 404 when there is none, including a thread that was soft-deleted (a PUT restores it). " +
    "`messages`, `participants` and `labels` come back exactly as stored (numbers keep every digit; see the PUT).",
  request: {
    params: legacyThreadIdParam(),
    query: z.object({
      account_email: accountEmail().openapi({ param: { name: "account_email", in: "query" }, description: "The synced mailbox" }),
    }),
    headers: ifNoneMatchHeader(),
  },
  errors: [404],
  responses: {
    200: withEtag({ description: "The thread", content: jsonContent(emailThreadEnvelopeSchema) }),
    ...notModifiedResponse,
  },
});

export const registerGetEmailThread = (api: Router) =>
  api.openapi(route, async (c) => {
    const { legacyThreadId } = c.req.valid("param");
    const { account_email } = c.req.valid("query");
    const row = await findLiveEmailThread(c.get("db"), c.get("auth").companyId, account_email, legacyThreadId);
    if (!row) throw notFound("Email thread");
    return notModified(c, row.etag) ?? jsonWithRaw<EmailThreadEnvelope, 200>(c, { email_thread: serializeEmailThread(row) }, 200);
  });
