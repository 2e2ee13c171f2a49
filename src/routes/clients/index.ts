import { createRouter } from "../../http/openapi";
import { registerBatchClients } from "./batch";
import { registerGetClient } from "./get";
import { registerListClients } from "./list";
import { registerPatchClient } from "./patch";
import { registerCreateClient } from "./post";
import { registerUpsertClient } from "./upsert";

export const clientsApi = createRouter();
registerListClients(clientsApi);
registerCreateClient(clientsApi);
registerBatchClients(clientsApi);
registerGetClient(clientsApi);
registerPatchClient(clientsApi);
registerUpsertClient(clientsApi);
