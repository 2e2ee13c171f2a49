import { createRouter } from "../../http/openapi";
import { registerGetEmailThread } from "./get-email-thread";
import { registerGetThreadContext } from "./get-thread-context";
import { registerPutEmailThread } from "./put-email-thread";
import { EMAIL_THREAD_BODY_LIMIT } from "./schema";

export const mailApi = createRouter();
registerGetThreadContext(mailApi);
registerPutEmailThread(mailApi);
registerGetEmailThread(mailApi);

/** Thread bodies are large: the body guard for these paths (registered before the generic 1 MiB one). */
export const mailBodyLimit = { path: "/mail/email-threads/*", maxBytes: EMAIL_THREAD_BODY_LIMIT };
