import { CrawlerError, checkEndpoint, s3Keys as k } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

const MiB = 1024 * 1024;

describe('S3 key mapping and upload plan', () => {
  it('maps a blob key to the same path after the prefix, and back', () => {
    const key = 'assets/0190a0b0/v3/pages/ab/cd/0190.html';
    expect(k.objectKey('', key)).toBe(key);
    const prefix = k.normalizePrefix('/greenfinger/user/');
    expect(prefix).toBe('greenfinger/user/');
    expect(k.objectKey(prefix, key)).toBe(`greenfinger/user/${key}`);
    expect(k.blobKey(prefix, `greenfinger/user/${key}`)).toBe(key);
    expect(k.normalizePrefix('')).toBe('');
    expect(k.normalizePrefix(undefined)).toBe('');
    expect(() => k.normalizePrefix('a/../b')).toThrow(/GF_S3_PREFIX/);
    expect(() => k.normalizePrefix('a//b')).toThrow(/GF_S3_PREFIX/);
  });

  it('refuses keys that leave user/, naming the key', () => {
    for (const bad of ['/etc/passwd', '../x', 'a/../../x']) {
      expect(() => k.objectKey('p/', bad)).toThrow(CrawlerError);
      expect(() => k.objectKey('p/', bad)).toThrow(bad);
    }
  });

  it('lists a key as the local store walks a path: the object itself, or its folder, never a sibling', () => {
    expect(k.listingOf('p/', 'assets/c/v1')).toEqual({ exact: 'p/assets/c/v1', under: 'p/assets/c/v1/' });
    expect(k.listingOf('p/', 'assets/c/v1/')).toEqual({ exact: 'p/assets/c/v1', under: 'p/assets/c/v1/' });
    expect(k.listingOf('p/', '')).toEqual({ exact: undefined, under: 'p/' });
    expect(k.listingOf('', '')).toEqual({ exact: undefined, under: '' });
  });

  it('puts small bodies in one request and large ones in parts, within S3 limits', () => {
    expect(k.uploadPlan(0)).toEqual({ kind: 'single' });
    expect(k.uploadPlan(16 * MiB - 1)).toEqual({ kind: 'single' });
    expect(k.uploadPlan(16 * MiB)).toEqual({ kind: 'multipart', partBytes: 8 * MiB, parts: 2 });
    expect(k.uploadPlan(100 * MiB)).toEqual({ kind: 'multipart', partBytes: 8 * MiB, parts: 13 });
    // A part is never under 5 MiB, whatever is asked.
    expect(k.uploadPlan(6 * MiB, { multipartBytes: MiB, partBytes: MiB })).toEqual({
      kind: 'multipart',
      partBytes: 5 * MiB,
      parts: 2,
    });
    // A body needing more than 10,000 parts gets larger parts.
    const huge = k.uploadPlan(100_000 * MiB);
    expect(huge.kind).toBe('multipart');
    if (huge.kind === 'multipart') {
      expect(huge.parts).toBeLessThanOrEqual(k.MAX_PARTS);
      expect(huge.partBytes * huge.parts).toBeGreaterThanOrEqual(100_000 * MiB);
    }
  });

  it('sends only the bytes of a view, without copying them', () => {
    const buffer = Buffer.from('0123456789');
    const body = k.bodyOf(buffer.subarray(3, 6));
    expect(body.toString()).toBe('345');
    expect(body.buffer).toBe(buffer.buffer);
    expect(k.bodyOf('héllo').toString('utf8')).toBe('héllo');
  });

  it('turns SDK failures into one line naming the setting', () => {
    const where = { endpoint: 'http://127.0.0.1:1', bucket: 'b' };
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(k.s3Error(refused, where, 'write x').toLine()).toMatch(
      /^GF_S3_ENDPOINT: no S3 server answers at http:\/\/127\.0\.0\.1:1/,
    );
    expect(k.s3Error(Object.assign(new Error('x'), { name: 'NoSuchBucket' }), where, 'w').message).toMatch(
      /^GF_S3_BUCKET:/,
    );
    expect(k.s3Error(Object.assign(new Error('x'), { name: 'InvalidAccessKeyId' }), where, 'w').message).toMatch(
      /^GF_S3_ACCESS_KEY_ID:/,
    );
    const denied = Object.assign(new Error('Access Denied'), {
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    const line = k.s3Error(denied, where, 'write assets/x').toLine();
    expect(line).toContain('write assets/x');
    expect(line).toContain('HTTP 403');
    expect(k.isNotFound(Object.assign(new Error('x'), { name: 'NoSuchKey' }))).toBe(true);
    expect(k.isNotFound(Object.assign(new Error('x'), { name: 'NotFound', $metadata: { httpStatusCode: 404 } }))).toBe(
      true,
    );
    expect(
      k.isNotFound(Object.assign(new Error('x'), { name: 'NoSuchBucket', $metadata: { httpStatusCode: 404 } })),
    ).toBe(false);
  });

  it('takes http(s) endpoints only', () => {
    expect(checkEndpoint('http://127.0.0.1:9000/')).toBe('http://127.0.0.1:9000');
    expect(() => checkEndpoint('127.0.0.1:9000')).toThrow(/GF_S3_ENDPOINT/);
  });
});
