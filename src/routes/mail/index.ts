import { createRouter } from "../../http/openapi";
import { registerGetEmailThread } from "./get-email-thread";
import { registerGetThreadContext } from "./get-thread-context";
import { registerPutEmailThread } from "./put-email-thread";

export const mailApi = createRouter();
registerGetThreadContext(mailApi);
registerPutEmailThread(mailApi);
registerGetEmailThread(mailApi);
