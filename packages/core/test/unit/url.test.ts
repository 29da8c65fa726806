import {
  ConfigError,
  normalizeUrl,
  parseUserUrl,
  registrableDomain,
  urlHash,
  urlKey,
} from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

describe('normalizeUrl', () => {
  it.each([
    ['HTTP://Example.COM/a', 'http://example.com/a'],
    ['http://example.com', 'http://example.com/'],
    ['http://example.com:80/a', 'http://example.com/a'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['https://example.com:8443/a', 'https://example.com:8443/a'],
    ['http://example.com:443/a', 'http://example.com:443/a'],
    ['http://example.com./a', 'http://example.com/a'],
    ['http://example.com/a/./b/../c', 'http://example.com/a/c'],
    ['http://example.com/a/b/../../../c', 'http://example.com/c'],
    ['http://example.com/a/%2e%2E/c', 'http://example.com/c'],
    ['http://example.com/a/%2E/c', 'http://example.com/a/c'],
    ['http://example.com/%7euser/%41%62c', 'http://example.com/~user/Abc'],
    ['http://example.com/a%2fb%3a', 'http://example.com/a%2Fb%3A'],
    ['http://example.com/a b', 'http://example.com/a%20b'],
    ['http://example.com/caf%c3%a9', 'http://example.com/caf%C3%A9'],
    ['http://example.com/café', 'http://example.com/caf%C3%A9'],
    ['http://example.com/100%', 'http://example.com/100%'],
    ['http://example.com/a#section', 'http://example.com/a'],
    ['http://example.com/a?#x', 'http://example.com/a'],
    ['http://example.com/a?', 'http://example.com/a'],
    ['http://example.com/a?b=2&a=1', 'http://example.com/a?a=1&b=2'],
    ['http://example.com/a?b=1&a=2&b=0', 'http://example.com/a?a=2&b=1&b=0'],
    ['http://example.com/a?&&x=1&&', 'http://example.com/a?x=1'],
    ['http://example.com/a?flag&x=', 'http://example.com/a?flag&x='],
    ['http://example.com/a?q=%7e%2f+b', 'http://example.com/a?q=~%2F+b'],
    ['http://example.com/a?utm_source=x&utm_medium=y&id=3', 'http://example.com/a?id=3'],
    ['http://example.com/a?UTM_Campaign=x', 'http://example.com/a'],
    ['http://example.com/?gclid=1&fbclid=2&mc_cid=3&mc_eid=4&_ga=5&ref_src=6&msclkid=7', 'http://example.com/'],
    ['http://example.com/a?ref=main&page=2', 'http://example.com/a?page=2&ref=main'],
    ['http://example.com/a/', 'http://example.com/a/'],
    ['http://example.com/a/index.html', 'http://example.com/a/index.html'],
    ['http://Bücher.Example/ä', 'http://xn--bcher-kva.example/%C3%A4'],
    ['http://user:pw@example.com/a', 'http://user:pw@example.com/a'],
    ['  https://example.com/a  ', 'https://example.com/a'],
    ['http://[::1]:8080/a', 'http://[::1]:8080/a'],
    ['http://127.0.0.1:8084/index.html', 'http://127.0.0.1:8084/index.html'],
  ])('%s → %s', (raw, expected) => {
    expect(normalizeUrl(raw)).toBe(expected);
  });

  it('keeps a trailing slash apart from no trailing slash', () => {
    expect(normalizeUrl('http://h/a')).not.toBe(normalizeUrl('http://h/a/'));
  });

  it('is idempotent', () => {
    for (const raw of ['http://EX.com:80/a/../b/%7e?z=1&utm_x=2&a=%2f#f', 'https://bücher.de/ä?b&a', 'http://h/100%']) {
      const once = normalizeUrl(raw) as string;
      expect(normalizeUrl(once)).toBe(once);
    }
  });

  it.each([
    ['mailto:a@example.com'],
    ['javascript:void(0)'],
    ['data:text/html,hi'],
    ['tel:+123'],
    ['ftp://example.com/file'],
    ['file:///etc/passwd'],
    ['not a url'],
    ['http://'],
    ['http://exa mple.com/'],
    [''],
    ['/relative/without/base'],
  ])('%s is not crawlable', (raw) => {
    expect(normalizeUrl(raw)).toBeUndefined();
  });

  describe('relative references against a base', () => {
    const base = 'http://example.com/docs/guide/page.html?x=1#top';
    it.each([
      ['other.html', 'http://example.com/docs/guide/other.html'],
      ['./other.html', 'http://example.com/docs/guide/other.html'],
      ['../api/', 'http://example.com/docs/api/'],
      ['../../../../up', 'http://example.com/up'],
      ['/abs', 'http://example.com/abs'],
      ['//cdn.example.org/x.js', 'http://cdn.example.org/x.js'],
      ['?y=2&utm_term=z', 'http://example.com/docs/guide/page.html?y=2'],
      ['#frag', 'http://example.com/docs/guide/page.html?x=1'],
      ['', 'http://example.com/docs/guide/page.html?x=1'],
      ['https://other.example/', 'https://other.example/'],
    ])('%s', (ref, expected) => {
      expect(normalizeUrl(ref, base)).toBe(expected);
    });
    it('refuses non-http references even with a base', () => {
      expect(normalizeUrl('mailto:x@example.com', base)).toBeUndefined();
      expect(normalizeUrl('javascript:alert(1)', base)).toBeUndefined();
    });
  });

  it('urlKey is the sha256 of the normalised url', () => {
    const n = normalizeUrl('HTTP://example.com:80/a?b=1&a=2') as string;
    expect(urlKey(n)).toBe(urlHash('http://example.com/a?a=2&b=1'));
    expect(urlKey(n)).toMatch(/^[0-9a-f]{64}$/);
    expect(urlKey(n)).toBe(urlKey(normalizeUrl('http://EXAMPLE.com/a?a=2&b=1#x') as string));
  });
});

describe('registrableDomain', () => {
  it.each([
    ['docs.python.org', 'python.org'],
    ['python.org', 'python.org'],
    ['a.b.c.example.com', 'example.com'],
    ['WWW.Example.COM.', 'example.com'],
    ['www.bbc.co.uk', 'bbc.co.uk'],
    ['bbc.co.uk', 'bbc.co.uk'],
    ['co.uk', 'co.uk'],
    ['shop.example.com.au', 'example.com.au'],
    ['user.github.io', 'user.github.io'],
    ['a.user.github.io', 'user.github.io'],
    ['project.readthedocs.io', 'project.readthedocs.io'],
    ['bucket.s3.amazonaws.com', 'bucket.s3.amazonaws.com'],
    ['x.example.co.jp', 'example.co.jp'],
    ['127.0.0.1', '127.0.0.1'],
    ['[::1]', '::1'],
    ['::1', '::1'],
    ['localhost', 'localhost'],
    ['intranet', 'intranet'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
  ])('%s → %s', (host, expected) => {
    expect(registrableDomain(host)).toBe(expected);
  });

  // The built-in subset of multi-label suffixes got these wrong (its answer in the comment); the whole Public
  // Suffix List, private section included, gets them right.
  it.each([
    ['x.example.gov.bd', 'example.gov.bd'], // gov.bd: scoped the whole of gov.bd
    ['www.city.kawasaki.jp', 'city.kawasaki.jp'], // kawasaki.jp: an exception rule (!city.kawasaki.jp)
    ['a.b.kawasaki.jp', 'a.b.kawasaki.jp'], // kawasaki.jp: a wildcard rule (*.kawasaki.jp)
    ['foo.bar.pvt.k12.ma.us', 'bar.pvt.k12.ma.us'], // ma.us
    ['a.b.s3.us-east-1.amazonaws.com', 'b.s3.us-east-1.amazonaws.com'], // amazonaws.com (private section)
    ['shop.a.myshopify.com', 'a.myshopify.com'], // myshopify.com (private section)
    ['a.b.uk.com', 'b.uk.com'], // uk.com (private section)
    ['www.example.ck', 'www.example.ck'], // example.ck: *.ck makes example.ck a suffix
  ])('%s → %s (Public Suffix List)', (host, expected) => {
    expect(registrableDomain(host)).toBe(expected);
  });

  it('keeps the answers the subset already had right for hosting platforms and country levels', () => {
    expect(registrableDomain('foo.github.io')).toBe('foo.github.io');
    expect(registrableDomain('github.io')).toBe('github.io');
    expect(registrableDomain('a.b.co.uk')).toBe('b.co.uk');
    expect(registrableDomain('x.s3.amazonaws.com')).toBe('x.s3.amazonaws.com');
    expect(registrableDomain('my_host.example.com')).toBe('example.com');
  });
});

describe('parseUserUrl', () => {
  it('returns the normalised url', () => {
    expect(parseUserUrl('  HTTPS://Example.com/Docs/?utm_source=x ', '--url')).toBe('https://example.com/Docs/');
    expect(parseUserUrl('http://127.0.0.1:8084/index.html', '--start-url')).toBe('http://127.0.0.1:8084/index.html');
  });

  it.each([
    ['example.com', /not a valid url/],
    ['', /is empty/],
    ['   ', /is empty/],
    ['ftp://example.com/', /ftp: but only http and https/],
    ['mailto:a@example.com', /only http and https/],
    ['http:example.com', /no host/],
    ['https:///path', /no host/],
    ['http://', /not a valid url/],
  ])('%j is refused naming the field and the fix', (input, message) => {
    let error: unknown;
    try {
      parseUserUrl(input, '--url');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const e = error as ConfigError;
    expect(e.field).toBe('--url');
    expect(e.message).toMatch(/^--url: /);
    expect(e.message).toMatch(message);
    expect(e.fix).toBe('give a full http(s) url such as https://example.com/');
  });
});
