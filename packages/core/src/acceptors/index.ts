export type * from './acceptor.js';
export {
  AcceptorChain,
  type AcceptorChainOptions,
  type AcceptorName,
  acceptorFactories,
  acceptorNames,
  acceptorRegistry,
  createAcceptorChain,
  mandatoryAcceptors,
} from './acceptor-chain.js';
export {
  type AssetCheckOptions,
  assetCheck,
  assetExtensions,
  createAssetCheck,
  documentExtensions,
  pathExtension,
} from './asset-check.js';
export { maxDepth } from './depth.js';
export { domainScope } from './domain-scope.js';
export { compilePathPattern, type PathPattern, pathPatterns } from './path-patterns.js';
export {
  HttpRobotsProvider,
  type HttpRobotsProviderOptions,
  parseRobotsTxt,
  productToken,
  ROBOTS_MAX_BYTES,
  type RobotsFetch,
  type RobotsGroup,
  RobotsPolicy,
  type RobotsRule,
  RobotsTxt,
} from './robots.js';
export { robotsTxt } from './robots-txt.js';
export {
  type DiscoveredSitemaps,
  type DiscoverSitemapOptions,
  discoverSitemapUrls,
  type ParsedSitemap,
  type ParseSitemapOptions,
  parseSitemap,
  SITEMAP_MAX_URLS,
  type SitemapEntry,
} from './sitemap.js';
export { startUrlPrefix } from './start-url-prefix.js';
export { ACCEPT as ACCEPT_VERDICT, refuse as refuseVerdict } from './verdict.js';
