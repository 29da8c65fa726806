/** What the layout needs of a pdf.js text item: its string, where it starts (transform e, f), its size and width. */
export interface PdfTextRun {
  str: string;
  /** [a, b, c, d, e, f]: d is the font's height, e and f where the run starts. */
  transform: readonly number[];
  width: number;
  height: number;
}

interface Line {
  y: number;
  height: number;
  endX: number;
  text: string;
}

/** A paragraph starts when the gap between two lines is this many times the page's usual line gap, … */
const PARAGRAPH_GAP = 1.35;
/** … or this many times the font's height (a page of single lines has no usual gap to compare with). */
const PARAGRAPH_GAP_FONT = 2.2;
/** Runs on one line that are further apart than this share of the font's height get a space between them. */
const WORD_GAP = 0.15;

/**
 * One page's text from its runs in content-stream order: runs on one baseline make a line (a space where they stand
 * apart), and a gap between lines clearly wider than the page's usual one (its median) starts a paragraph, as does a
 * move back up the page (a new column or block). Measured on Chromium, groff and Ghostscript PDFs: the same words as
 * poppler's pdftotext, with its paragraphs.
 */
export class PdfPageText {
  readonly #lines: Line[] = [];
  #chars = 0;

  /** Characters taken so far. */
  get chars(): number {
    return this.#chars;
  }

  add(run: PdfTextRun): void {
    if (run.str === '') return;
    const [, , , d = 0, x = 0, y = 0] = run.transform;
    const height = Math.abs(d) || run.height || 10;
    const str = run.str.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
    this.#chars += str.length;
    const line = this.#lines[this.#lines.length - 1];
    if (line && Math.abs(line.y - y) <= Math.max(height, line.height) * 0.5) {
      if (x - line.endX > Math.min(height, line.height) * WORD_GAP && !/\s$/.test(line.text) && !/^\s/.test(str)) {
        line.text += ' ';
      }
      line.text += str;
      line.endX = x + run.width;
      if (str.trim()) line.height = Math.max(line.height, height);
    } else {
      this.#lines.push({ y, height, endX: x + run.width, text: str });
    }
  }

  /** The page's text: lines joined by a newline, paragraphs by a blank line. */
  text(): string {
    const lines = this.#lines;
    const gaps: number[] = [];
    for (let i = 1; i < lines.length; i++) {
      const g = lines[i - 1]!.y - lines[i]!.y;
      if (g > 0) gaps.push(g);
    }
    gaps.sort((a, b) => a - b);
    const usual = gaps.length ? gaps[Math.floor(gaps.length / 2)]! : 0;
    let out = '';
    let previous: Line | undefined;
    for (const line of lines) {
      const text = line.text.replace(/\s+/g, ' ').trim();
      if (!text) continue;
      if (previous) {
        const g = previous.y - line.y;
        const paragraph =
          g <= 0 || g > usual * PARAGRAPH_GAP || g > Math.max(previous.height, line.height) * PARAGRAPH_GAP_FONT;
        out += paragraph ? '\n\n' : '\n';
      }
      out += text;
      previous = line;
    }
    return out;
  }
}
