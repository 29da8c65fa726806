import type { ComponentChildren } from 'preact';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** `&lt;` → `<`, `&#39;` → `'`: the API escapes the passage; the page shows it as text, never as markup. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * A highlighted passage as the API gives it (`<em>` around the matched words, everything else escaped) made into
 * text nodes and <mark> elements. Any other tag stays visible as text: nothing from a crawled page becomes markup.
 */
export function Highlight({ passage }: { passage: string }) {
  const parts: ComponentChildren[] = [];
  const re = /<em>([\s\S]*?)<\/em>/g;
  let at = 0;
  let m: RegExpExecArray | null = re.exec(passage);
  while (m) {
    if (m.index > at) parts.push(decodeEntities(passage.slice(at, m.index)));
    parts.push(<mark>{decodeEntities(m[1] ?? '')}</mark>);
    at = m.index + m[0].length;
    m = re.exec(passage);
  }
  if (at < passage.length) parts.push(decodeEntities(passage.slice(at)));
  return <>{parts}</>;
}
