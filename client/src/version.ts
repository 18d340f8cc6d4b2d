/**
 * The version of the Partner Purchase API this client is made for: the OpenAPI document's `info.version`, and what
 * `GET /v1/health` answers in `version`. package.json states it too (`apiVersion`); a test holds all three equal.
 */
export const apiVersion = "1.0.0";
