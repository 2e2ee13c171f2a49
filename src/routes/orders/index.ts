import { createRouter } from "../../http/openapi";
import { registerDeleteOrder } from "./delete";
import { registerGetOrder } from "./get";
import { registerDeleteItem } from "./items/delete";
import { registerPatchItem } from "./items/patch";
import { registerCreateItem } from "./items/post";
import { registerListOrders } from "./list";
import { registerPatchOrder } from "./patch";
import { registerCreateOrder } from "./post";

export const ordersApi = createRouter();
registerListOrders(ordersApi);
registerCreateOrder(ordersApi);
registerGetOrder(ordersApi);
registerPatchOrder(ordersApi);
registerDeleteOrder(ordersApi);
registerCreateItem(ordersApi);
registerPatchItem(ordersApi);
registerDeleteItem(ordersApi);
