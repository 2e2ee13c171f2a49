import { createRouter } from "../../http/openapi";
import { registerLive } from "./live";
import { registerReady } from "./ready";

export const healthApi = createRouter();
registerLive(healthApi);
registerReady(healthApi);
