import { createRouter } from "../../http/openapi";
import { registerDeleteOrder } from "./delete";
import { registerGetOrder } from "./get";
import { registerListOrders } from "./list";
import { registerPatchOrder } from "./patch";
import { registerCreateOrder } from "./post";

export const ordersApi = createRouter();
registerListOrders(ordersApi);
registerCreateOrder(ordersApi);
registerGetOrder(ordersApi);
registerPatchOrder(ordersApi);
registerDeleteOrder(ordersApi);
