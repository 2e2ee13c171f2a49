import { createRouter } from "../../http/openapi";
import { registerDeleteWebhookEndpoint } from "./delete";
import { registerGetWebhookEndpoint } from "./get";
import { registerListWebhookEndpoints } from "./list";
import { registerListWebhookDeliveries } from "./list-deliveries";
import { registerPatchWebhookEndpoint } from "./patch";
import { registerCreateWebhookEndpoint } from "./post";
import { registerRetryWebhookDelivery } from "./retry-delivery";
import { registerRotateWebhookEndpointSecret } from "./rotate-secret";

export const webhookEndpointsApi = createRouter();
registerListWebhookEndpoints(webhookEndpointsApi);
registerCreateWebhookEndpoint(webhookEndpointsApi);
registerGetWebhookEndpoint(webhookEndpointsApi);
registerPatchWebhookEndpoint(webhookEndpointsApi);
registerDeleteWebhookEndpoint(webhookEndpointsApi);
registerRotateWebhookEndpointSecret(webhookEndpointsApi);
registerListWebhookDeliveries(webhookEndpointsApi);
registerRetryWebhookDelivery(webhookEndpointsApi);
