export { filePathOf, fileUrlOf, folderCatalogName, isFileUrl, isFolderUrl } from './file-url.js';
export { foundAs, MAX_FOUND_AS, writtenForm } from './found-as.js';
export {
  isSessionParam,
  isTrackingParam,
  type NormalizeOptions,
  normalizeFileUrl,
  normalizePercentEncoding,
  normalizeUrl,
  SESSION_PARAMS,
  urlKey,
} from './normalize.js';
export { parseUserUrl } from './parse-user-url.js';
export { registrableDomain } from './registrable-domain.js';
