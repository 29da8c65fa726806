import { fanout, ids, isUuid, urlHash, uuidv5, uuidv7 } from '@greenfinger/core';
import { describe, expect, it } from 'vitest';

describe('ids', () => {
  it('uuidv5 matches the RFC 9562 test vector', () => {
    // DNS namespace, "www.example.com" → 2ed6657d-e927-568b-95e1-2665a8aea6a2
    expect(uuidv5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });
  it('uuidv7 is time ordered, version 7, 36 characters', () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a < b).toBe(true);
    expect(a[14]).toBe('7');
    expect(isUuid(a)).toBe(true);
    expect(a.slice(0, 13)).toBe('018bcfe5-6800');
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
