/** The REST API's version (the /v2 surface of docs/api.md). */
export const API_VERSION = '0.2.0';
