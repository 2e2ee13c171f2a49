import { createRouter } from "../../http/openapi";
import { registerGetMe } from "./get";

export const meApi = createRouter();
registerGetMe(meApi);
