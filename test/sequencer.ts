// The order the suite's files start in: the longest first, so the last minutes are not one long file
// running alone while the other worker idles. Durations come from test/suite-durations.json (seconds
// per file, from a run of the whole suite; refresh it with the JSON reporter when files change a lot).
// A file the table does not know runs early (it may be long). Vitest's own order would use its
// results cache (shared by every checkout of node_modules) or, without one, file size.

import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = resolve(import.meta.dirname, '..');
const SECONDS: Record<string, number> = JSON.parse(readFileSync(resolve(ROOT, 'test/suite-durations.json'), 'utf8'));
const UNKNOWN_SECONDS = 30;

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (f: TestSpecification): number => SECONDS[relative(ROOT, f.moduleId).split('\\').join('/')] ?? UNKNOWN_SECONDS;
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}
