export { isTrackingParam, normalizePercentEncoding, normalizeUrl, urlKey } from './normalize.js';
export { parseUserUrl } from './parse-user-url.js';
export { registrableDomain } from './registrable-domain.js';
