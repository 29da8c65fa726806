/** Cells between rows, in the text of a CSV document. */
export const CSV_CELL_SEPARATOR = ' · ';

/** The delimiter of a CSV: comma, semicolon (spreadsheets in decimal-comma locales) or tab, by the first line. */
export function csvDelimiter(text: string): string {
  const firstLine = text.slice(0, text.indexOf('\n') >= 0 ? text.indexOf('\n') : Math.min(text.length, 65_536));
  const outsideQuotes = firstLine.replace(/"[^"]*"/g, '');
  let best = ',';
  let bestCount = 0;
  for (const d of [',', ';', '\t']) {
    const n = outsideQuotes.split(d).length - 1;
    if (n > bestCount) {
      best = d;
      bestCount = n;
    }
  }
  return best;
}

/**
 * RFC 4180 records: quoted fields may hold the delimiter, line breaks and doubled quotes; a stray quote inside an
 * unquoted field is kept as text. One pass, no backtracking.
 */
export function parseCsv(text: string, delimiter = csvDelimiter(text)): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let atFieldStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
      continue;
    }
    if (c === '"' && atFieldStart) {
      quoted = true;
      atFieldStart = false;
    } else if (c === delimiter) {
      row.push(field);
      field = '';
      atFieldStart = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      atFieldStart = true;
    } else {
      field += c;
      atFieldStart = false;
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** A CSV as text: one line per row, its non-empty cells joined by ' · ' (empty rows dropped). */
export function csvText(text: string): string {
  return parseCsv(text)
    .map((cells) =>
      cells
        .map((c) => c.replace(/\s+/g, ' ').trim())
        .filter(Boolean)
        .join(CSV_CELL_SEPARATOR),
    )
    .filter(Boolean)
    .join('\n');
}
