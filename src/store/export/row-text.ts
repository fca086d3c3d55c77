// How one row of a view becomes a line of a plain file: RFC 4180 CSV or JSON Lines.
// Byte-exact by design: strings are written as stored (a leading "=" stays "=": escaping formula
// injection would change the data; spreadsheet users import the columns as text). In CSV a NULL is
// an empty field and an empty string is "" (quoted), so the two stay distinguishable.

export type Cell = string | number | bigint | null | Buffer;

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(v: Cell): string {
  if (v === null) return '';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  // the views hold no blobs; should one appear, it is written as hex rather than as mangled text
  if (Buffer.isBuffer(v)) return v.toString('hex');
  if (v === '') return '""';
  return NEEDS_QUOTES.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/** One CSV record, CRLF-terminated (RFC 4180 section 2). */
export function csvLine(row: readonly Cell[]): string {
  let line = '';
  for (let i = 0; i < row.length; i++) line += (i === 0 ? '' : ',') + csvField(row[i]!);
  return `${line}\r\n`;
}

/** Parses RFC 4180 CSV as csvLine writes it (quoted "" is an empty string, unquoted empty is null). For tests and tools. */
export function parseCsv(text: string): Array<Array<string | null>> {
  const rows: Array<Array<string | null>> = [];
  let row: Array<string | null> = [];
  let i = 0;
  while (i < text.length) {
    let field: string | null;
    if (text[i] === '"') {
      let j = i + 1;
      let s = '';
      for (;;) {
        const q = text.indexOf('"', j);
        if (q === -1) throw new Error('unterminated quoted field');
        s += text.slice(j, q);
        if (text[q + 1] === '"') {
          s += '"';
          j = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      field = s;
    } else {
      let j = i;
      while (j < text.length && text[j] !== ',' && text[j] !== '\r' && text[j] !== '\n') j++;
      field = j === i ? null : text.slice(i, j);
      i = j;
    }
    row.push(field);
    if (text[i] === ',') {
      i++;
    } else if (text.startsWith('\r\n', i) || text[i] === '\n' || i >= text.length) {
      i += text.startsWith('\r\n', i) ? 2 : 1;
      rows.push(row);
      row = [];
    } else {
      throw new Error(`unexpected character after field at offset ${i}`);
    }
  }
  return rows;
}

/** One JSON Lines record: an object keyed by column name; JSON-valued columns stay JSON text. */
export function jsonLine(columns: readonly string[], row: readonly Cell[]): string {
  const o: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) {
    const v = row[i]!;
    o[columns[i]!] = typeof v === 'bigint' ? Number(v) : Buffer.isBuffer(v) ? v.toString('hex') : v;
  }
  return `${JSON.stringify(o)}\n`;
}
