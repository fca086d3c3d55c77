// The documentation the tests hold true: README.md and every page of docs/ that exists (other pages
// may land later; each is read as soon as it is there).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** README.md first, then docs/*.md in name order, as [relative path, text]. */
export function docPages(): Array<[string, string]> {
  const docs = existsSync(join(ROOT, 'docs')) ? readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`) : [];
  return ['README.md', ...docs].map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]);
}

/** README.md and docs/*.md as one text (pages separated by a blank line). */
export function docsText(): string {
  return docPages().map(([, text]) => text).join('\n\n');
}
