import { chunkText } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

const sentence = (i: number): string => `Sentence number ${i} talks about crawling the web politely.`;

describe('chunkText', () => {
  it('gives nothing for empty text and one chunk for short text, whitespace collapsed', () => {
    expect(chunkText('  \n\t ')).toEqual([]);
    expect(chunkText('Hello   world.\n\nSecond line.', { chunkSize: 100 })).toEqual(['Hello world. Second line.']);
  });

  it('keeps chunks near the size and cuts at sentence ends', () => {
    const text = Array.from({ length: 40 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, { chunkSize: 300, overlap: 60, maxChunks: 100 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(300);
      expect(c.length).toBeGreaterThan(100);
    }
    for (const c of chunks.slice(0, -1)) expect(c.endsWith('.')).toBe(true);
    expect(chunks.at(-1)?.endsWith(sentence(39))).toBe(true);
  });

  it('overlaps consecutive chunks and covers every word in order', () => {
    const text = Array.from({ length: 30 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, { chunkSize: 250, overlap: 80, maxChunks: 100 });
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1] as string;
      const firstWords = (chunks[i] as string).split(' ').slice(0, 3).join(' ');
      expect(prev).toContain(firstWords);
    }
    for (let i = 0; i < 30; i++) expect(chunks.some((c) => c.includes(sentence(i)))).toBe(true);
  });

  it('falls back to word boundaries, never splitting a word when there is a space', () => {
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`);
    const chunks = chunkText(words.join(' '), { chunkSize: 120, overlap: 30, maxChunks: 1000 });
    const vocabulary = new Set(words);
    for (const c of chunks) for (const w of c.split(' ')) expect(vocabulary.has(w)).toBe(true);
    expect(chunks.at(-1)?.endsWith('word299')).toBe(true);
  });

  it('cuts text without spaces hard and still terminates', () => {
    const chunks = chunkText('x'.repeat(1000), { chunkSize: 100, overlap: 20, maxChunks: 100 });
    expect(chunks.every((c) => c.length === 100 || c === chunks.at(-1))).toBe(true);
    expect(chunks.join('').length).toBeGreaterThanOrEqual(1000);
  });

  it('stops at maxChunks', () => {
    const text = Array.from({ length: 200 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, { chunkSize: 200, overlap: 0, maxChunks: 3 });
    expect(chunks).toHaveLength(3);
    expect(chunks[0]?.startsWith(sentence(0))).toBe(true);
  });

  it('uses the configured defaults (1000 characters, 200 overlap, 20 chunks)', () => {
    const text = Array.from({ length: 1000 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text);
    expect(chunks).toHaveLength(20);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(1000);
  });
});
