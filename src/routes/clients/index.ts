import { createRouter } from "../../http/openapi";
import { registerGetClient } from "./get";
import { registerListClients } from "./list";
import { registerPatchClient } from "./patch";
import { registerCreateClient } from "./post";
import { registerUpsertClient } from "./upsert";

export const clientsApi = createRouter();
registerListClients(clientsApi);
registerCreateClient(clientsApi);
registerGetClient(clientsApi);
registerPatchClient(clientsApi);
registerUpsertClient(clientsApi);
