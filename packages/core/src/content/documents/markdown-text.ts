import { bareUrls } from './document-text.js';

/** What a Markdown source says, with its markup stripped. */
export interface MarkdownText {
  /** Front matter `title:`, else the first `# ` heading, else the first `===` (setext) heading, else ''. */
  title: string;
  /** Front matter `lang:` / `language:`, else ''. */
  lang: string;
  /** The words: no link targets, emphasis markers, code fence lines, heading or list markers, html tags. */
  text: string;
  /** Link targets as written (inline, reference definitions, autolinks, html hrefs, bare urls), in order. */
  links: string[];
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const ATX = /^\s{0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$/;
const SETEXT = /^\s{0,3}(=+|-+)\s*$/;
const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
const DEFINITION = /^\s{0,3}\[([^\]]+)\]:\s*<?([^\s>]+)>?(?:\s+.*)?$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$/;
/** A line no block or inline rule can apply to: taken as it is (most of the lines of prose). */
const PLAIN_LINE = /^[^\s\\`*_[\]<>!~|#=+\-\d][^\\`*_[\]<>!~|]*$/;
const ESCAPABLE = /\\([\\`*_{}[\]()#+\-.!|>~<])/g;

/** Markdown's backslash escapes, hidden in private-use characters while the markup is stripped. */
const hide = (s: string) => s.replace(ESCAPABLE, (_, c: string) => String.fromCharCode(0xe000 + c.charCodeAt(0)));
const unhide = (s: string) => s.replace(/[\ue000-\ue07f]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xe000));

function frontMatter(lines: string[]): { end: number; title: string; lang: string } {
  const none = { end: 0, title: '', lang: '' };
  if (lines[0]?.trim() !== '---') return none;
  const last = Math.min(lines.length, 200);
  for (let i = 1; i < last; i++) {
    if (lines[i]!.trim() === '---' || lines[i]!.trim() === '...') {
      const field = (name: RegExp) => {
        for (const l of lines.slice(1, i)) {
          const m = name.exec(l);
          if (m) return m[1]!.trim().replace(/^(["'])(.*)\1$/, '$2');
        }
        return '';
      };
      return { end: i + 1, title: field(/^title:\s*(.+)$/i), lang: field(/^(?:lang|language):\s*(.+)$/i) };
    }
  }
  return none;
}

/** Inline markup to words: links and images to their text, code spans to their code, emphasis and tags dropped. */
function inline(line: string, links: string[]): string {
  // Code spans keep their content as it is; the markup rules apply between them.
  return line
    .split(/(`+)([^`]|[^`].*?[^`])\1/)
    .map((part, i) => {
      if (i % 3 === 1) return '';
      if (i % 3 === 2) return part.trim();
      let s = part;
      s = s.replace(/!\[([^\]]*)\]\(\s*<?[^)\s>]*>?(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g, '$1');
      s = s.replace(/\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g, (_, text, url) => {
        links.push(unhide(url));
        return text;
      });
      s = s.replace(/\[\^[^\]]+\]/g, '');
      s = s.replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1');
      s = s.replace(/<((?:https?|file):[^>\s]+)>/gi, (_, url) => {
        links.push(url);
        return url;
      });
      s = s.replace(/<mailto:([^>\s]+)>/gi, '$1');
      s = s.replace(/<a\s[^>]*?href\s*=\s*["']([^"']+)["'][^>]*>/gi, (_, url) => {
        links.push(url);
        return '';
      });
      s = s.replace(/<br\s*\/?>/gi, ' ').replace(/<\/?[A-Za-z][^>]*>/g, '');
      s = s.replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2');
      s = s.replace(/(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])/g, '$1');
      s = s.replace(/(?<![\p{L}\p{N}_])_(?=\S)(.+?)(?<=\S)_(?![\p{L}\p{N}_])/gu, '$1');
      s = s.replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '$1');
      return s;
    })
    .join('');
}

/**
 * Markdown (CommonMark and GitHub's tables) to plain text: the words stay, the markup goes. Code blocks keep their
 * lines without the fence lines; a table row becomes its cells joined by ' · '. One pass over the lines.
 */
export function markdownText(source: string): MarkdownText {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const fm = frontMatter(lines);
  const links: string[] = [];
  const out: string[] = [];
  let title = fm.title;
  let atxTitle = '';
  let setextTitle = '';
  let fence: string | undefined;
  for (let i = fm.end; i < lines.length; i++) {
    const raw = lines[i]!;
    const fenceMark = FENCE.exec(raw)?.[1];
    if (fence !== undefined) {
      if (
        fenceMark &&
        fenceMark[0] === fence[0] &&
        fenceMark.length >= fence.length &&
        !raw.trim().slice(fenceMark.length).trim()
      ) {
        fence = undefined;
        out.push('');
      } else out.push(raw);
      continue;
    }
    if (fenceMark) {
      fence = fenceMark;
      out.push('');
      continue;
    }
    if (PLAIN_LINE.test(raw)) {
      out.push(raw);
      continue;
    }
    const line = hide(raw);
    const definition = DEFINITION.exec(line);
    if (definition && !definition[1]!.startsWith('^')) {
      links.push(unhide(definition[2]!));
      continue;
    }
    const previous = out.length > 0 ? out[out.length - 1]! : '';
    const setext = SETEXT.exec(line);
    if (setext && previous.trim() && !/^\s*[-*+]\s/.test(lines[i - 1] ?? '')) {
      if (setext[1]![0] === '=' && !setextTitle) setextTitle = previous.trim();
      out.push('');
      continue;
    }
    if (TABLE_DELIMITER.test(line)) continue;
    if (RULE.test(line)) {
      out.push('');
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      const heading = unhide(inline(atx[2] ?? '', links)).trim();
      if (atx[1] === '#' && !atxTitle) atxTitle = heading;
      out.push('', heading, '');
      continue;
    }
    let body = line.replace(/^\s{0,3}(?:>\s?)+/, '');
    body = body.replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/, '');
    if (/^\s*\|.*\|\s*$/.test(body) || (body.match(/(?<!\\)\|/g)?.length ?? 0) >= 2) {
      body = body
        .replace(/^\s*\|/, '')
        .replace(/\|\s*$/, '')
        .split('|')
        .map((cell) => inline(cell, links).trim())
        .filter(Boolean)
        .join(' · ');
    } else body = inline(body, links);
    out.push(unhide(body));
  }
  const text = out.join('\n');
  for (const url of bareUrls(text)) links.push(url);
  title ||= atxTitle || setextTitle;
  return { title, lang: fm.lang, text, links };
}
