import type { RunReport } from '../model.js';
import type { CrawlRequest } from './crawl-service.js';

/**
 * What runs a crawl verb for the JobService (a job of the REST API server or the prompt): this process's CrawlService
 * by default; a cluster member gives one that sends the verb to its leader and follows the cluster's run
 * (`GreenfingerComponents.crawlRunner`). Abort on `req.signal` stops the run; `onStart` and `onProgress` are told as a
 * local run tells them.
 */
export interface CrawlRunner {
  crawl(req: CrawlRequest): Promise<RunReport>;
}
