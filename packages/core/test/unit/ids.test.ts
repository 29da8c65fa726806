import { fanout, ids, isUuid, urlHash, uuidv5, uuidv7 } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

describe('ids', () => {
  it('uuidv5 matches the RFC 9562 test vector', () => {
    // DNS namespace, "www.example.com" → 2ed6657d-e927-568b-95e1-2665a8aea6a2
    expect(uuidv5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });
  it('uuidv5 of a non-ASCII name hashes its UTF-8 bytes', () => {
    expect(uuidv5('6ba7b811-9dad-11d1-80b4-00c04fd430c8', 'https://exämple.com/ü')).toBe(
      '3d1e4736-73f7-56dc-b58c-e68dc416fbe1',
    );
  });
  it('uuidv5 refuses a namespace that is not a UUID', () => {
    expect(() => uuidv5('not-a-uuid', 'x')).toThrow(TypeError);
  });
  it('uuidv7 is time ordered, version 7, variant 10, 36 characters', () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a < b).toBe(true);
    expect(a[14]).toBe('7');
    expect('89ab').toContain(a[19]);
    expect(isUuid(a)).toBe(true);
    expect(a.slice(0, 13)).toBe('018bcfe5-6800');
    expect(uuidv7(1_700_000_000_000)).not.toBe(a);
  });
  it('uuidv7 without a time sorts in the order the ids were made', () => {
    const made = Array.from({ length: 200 }, () => uuidv7());
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(200);
  });
  // Computed with the hand-written v5 before ids.ts moved to the uuid package: stored ids must not change.
  it('every id kind is the same as before the switch to the uuid package', () => {
    const cat = '018bcfe5-6800-7abc-8def-0123456789ab';
    const h = 'a'.repeat(64);
    const img1 = ids.image(cat, 1, 'b'.repeat(64));
    expect(ids.resource(cat, 0, h)).toBe('034a3bef-fefa-5a36-8fba-4d8c755fb9c4');
    expect(ids.resource(cat, 3, h)).toBe('6941b9d6-de59-5353-8d13-5faa7f6e5eea');
    expect(img1).toBe('43d10644-a512-5fcd-8c77-bccf56a3a5e4');
    expect(ids.resourceImage(cat, 1, ids.resource(cat, 1, h), img1)).toBe('f63d9cf7-189e-58b6-bed4-20b4ccc61653');
    expect(ids.textPoint(cat, 2, ids.resource(cat, 2, h), 7)).toBe('3c40197e-c5a4-5e16-a282-17b504a5389b');
    expect(ids.imagePoint(cat, 2, ids.image(cat, 2, 'c'.repeat(64)))).toBe('267b830f-758a-5d6d-a8fe-99813b4f9e63');
  });
  it('resource ids are deterministic and carry the version', () => {
    const cat = uuidv7();
    const h = urlHash('http://example.com/a');
    expect(h).toHaveLength(64);
    expect(ids.resource(cat, 0, h)).toBe(ids.resource(cat, 0, h));
    expect(ids.resource(cat, 0, h)).not.toBe(ids.resource(cat, 1, h));
    expect(ids.resource(cat, 0, h)[14]).toBe('5');
    const img = ids.image(cat, 0, 'abc');
    expect(ids.imagePoint(cat, 0, img)).not.toBe(ids.resourceImage(cat, 0, ids.resource(cat, 0, h), img));
    expect(fanout('abcdef01-0000')).toBe('ab/cd');
  });
});
