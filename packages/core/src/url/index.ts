export {
  isSessionParam,
  isTrackingParam,
  type NormalizeOptions,
  normalizePercentEncoding,
  normalizeUrl,
  SESSION_PARAMS,
  urlKey,
} from './normalize.js';
export { parseUserUrl } from './parse-user-url.js';
export { registrableDomain } from './registrable-domain.js';
