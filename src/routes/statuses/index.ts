import { createRouter } from "../../http/openapi";
import { registerDeleteStatus } from "./delete";
import { registerListStatuses } from "./list";
import { registerPatchStatus } from "./patch";
import { registerCreateStatus } from "./post";

export const statusesApi = createRouter();
registerListStatuses(statusesApi);
registerCreateStatus(statusesApi);
registerPatchStatus(statusesApi);
registerDeleteStatus(statusesApi);
