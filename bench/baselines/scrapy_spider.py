"""Baseline: a minimal Scrapy CrawlSpider. Same start url, same-host links, title + text only,
CONCURRENT_REQUESTS 16 (and 16 per domain), no delay, no robots, no cache.
Prints one JSON line: {"crawler": "scrapy", "pages": N}.
Run: /usr/bin/python3 bench/baselines/scrapy_spider.py <start-url> [concurrency]
"""

import json
import sys
from urllib.parse import urlparse

from scrapy.crawler import CrawlerProcess
from scrapy.http import HtmlResponse
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

START_URL = sys.argv[1]
CONCURRENCY = int(sys.argv[2]) if len(sys.argv) > 2 else 16
HOST = urlparse(START_URL).hostname
counts = {"pages": 0, "textChars": 0}


class BenchSpider(CrawlSpider):
    name = "bench"
    allowed_domains = [HOST]
    start_urls = [START_URL]
    rules = (Rule(LinkExtractor(), callback="parse_item", follow=True),)

    def parse_start_url(self, response, **kwargs):
        return self.parse_item(response)

    def parse_item(self, response):
        if not isinstance(response, HtmlResponse):
            return
        title = (response.css("title::text").get() or "").strip()
        text = " ".join(t.strip() for t in response.xpath("//body//text()").getall() if t.strip())
        counts["pages"] += 1
        counts["textChars"] += len(title) + len(text)


process = CrawlerProcess(
    settings={
        "CONCURRENT_REQUESTS": CONCURRENCY,
        "CONCURRENT_REQUESTS_PER_DOMAIN": CONCURRENCY,
        "DOWNLOAD_DELAY": 0,
        "ROBOTSTXT_OBEY": False,
        "HTTPCACHE_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "WARNING",
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    }
)
process.crawl(BenchSpider)
process.start()
print(json.dumps({"crawler": "scrapy", **counts}), flush=True)
