/** Where the v1 API is mounted; its OpenAPI server URL is `<origin>/api/v1`. */
export const API_PREFIX = "/api/v1";
