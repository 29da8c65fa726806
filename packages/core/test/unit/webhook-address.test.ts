import { privateAddressKind, webhookSignature, webhookUrlProblem } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

describe('webhook addresses (SSRF)', () => {
  it.each([
    ['127.0.0.1', 'loopback (127.0.0.0/8)'],
    ['127.255.0.9', 'loopback (127.0.0.0/8)'],
    ['::1', 'loopback (::1/128)'],
    ['10.0.0.1', 'private (10.0.0.0/8)'],
    ['172.16.0.1', 'private (172.16.0.0/12)'],
    ['172.31.255.255', 'private (172.16.0.0/12)'],
    ['192.168.1.1', 'private (192.168.0.0/16)'],
    ['169.254.169.254', 'link-local (169.254.0.0/16)'],
    ['0.0.0.0', 'unspecified (0.0.0.0/8)'],
    ['fd12:3456::1', 'private (unique local) (fc00::/7)'],
    ['fe80::1', 'link-local (fe80::/10)'],
    ['::ffff:10.1.2.3', 'private (10.0.0.0/8)'],
    ['[::1]', 'loopback (::1/128)'],
  ])('%s is %s', (address, kind) => {
    expect(privateAddressKind(address)).toBe(kind);
  });

  it.each(['93.184.215.14', '172.32.0.1', '8.8.8.8', '2606:4700::1111', 'example.com'])('%s is not refused', (a) => {
    expect(privateAddressKind(a)).toBeUndefined();
  });

  it('a url: http or https, no credentials, no private literal address unless allowed', () => {
    expect(webhookUrlProblem('https://hooks.example.com/x', false)).toBeUndefined();
    expect(webhookUrlProblem('http://[::1]:8080/x', false)).toContain('loopback (::1/128) address, refused (SSRF)');
    expect(webhookUrlProblem('http://[::1]:8080/x', true)).toBeUndefined();
    expect(webhookUrlProblem('http://10.9.9.9/x', true)).toBeUndefined();
    expect(webhookUrlProblem('hooks.example.com', false)).toContain('is not a url');
    expect(webhookUrlProblem('file:///etc/passwd', false)).toContain('a webhook is an http or https url');
    expect(webhookUrlProblem('https://u:p@hooks.example.com/', false)).toContain('carries credentials');
  });

  it('signs the exact body: sha256=<hex HMAC-SHA256>', () => {
    // RFC 4231 test case 2.
    expect(webhookSignature('Jefe', 'what do ya want for nothing?')).toBe(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });
});
