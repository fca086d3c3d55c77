import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// What `wbsync --help`, `--version` and every command's start load before the command runs: the
// static imports reachable from main.ts (dynamic `import()` and `import type` excluded). Each
// command's work is an `import()` of cli/actions/ when it runs; one top-level import of a heavy
// room here would load it for every command again (616 modules and 0.4 s for `--version` before).

const SRC = resolve(import.meta.dirname, '..');

/** The static value imports of a source file: `import … from`, `export … from` and bare `import '…'`. */
export function staticImports(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  for (const m of code.matchAll(/^\s*(import|export)\s+(?!type\b)([^;'"]*?)\s+from\s+['"]([^'"]+)['"]/gm)) found.push(m[3]!);
  for (const m of code.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) found.push(m[1]!);
  return found;
}

/** Every file and package reachable from `entry`, each with the chain of files that imports it. */
function reachable(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift()!;
    for (const spec of staticImports(readFileSync(join(SRC, file), 'utf8'))) {
      const to = spec.startsWith('.') ? relative(SRC, resolve(SRC, dirname(file), spec)).replace(/\.js$/, '.ts') : spec;
      if (seen.has(to)) continue;
      seen.set(to, [...seen.get(file)!, to]);
      if (spec.startsWith('.')) queue.push(to);
    }
  }
  return seen;
}

/** What the command line needs before a command runs: parsing, help, the commands' declarations. */
function allowedAtStart(name: string): boolean {
  if (name.startsWith('node:') || name === 'commander') return true;
  if (name.startsWith('domain/')) return true;
  if (name === 'config/heap-policy.ts' || name === 'config/thread-priority.ts' || name === 'config/scrub-secrets.ts') return true;
  return name.startsWith('cli/') && !name.startsWith('cli/actions/') && !name.startsWith('cli/open');
}

describe('what the CLI loads before a command runs', () => {
  it('finds the imports of a file, not its type imports, comments or dynamic imports', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import {\n  c,\n  type C,\n} from 'c-package';",
      "export { d } from '../d.js';",
      "import './side-effect.js';",
      "// import { e } from './e.js';",
      "const f = await import('./f.js');",
    ].join('\n');
    expect(staticImports(text)).toEqual(['./a.js', 'c-package', '../d.js', './side-effect.js']);
  });

  it('is the parser, the help and the commands declarations only: no command action, store, client, restore, fleet, config schema or logger', () => {
    const graph = reachable('cli/main.ts');
    const beyond = [...graph].filter(([name]) => !allowedAtStart(name)).map(([, chain]) => chain.join(' -> '));
    expect(beyond).toEqual([]);
    // the check sees the registry's commands (it is not vacuous)
    expect([...graph.keys()]).toEqual(expect.arrayContaining(['cli/registry.ts', 'cli/commands/sync.ts', 'cli/commands/restore-workspace.ts', 'cli/commands/fleet-tenant.ts', 'commander']));
  });

  it('a command that only reads the database does not load the service client', () => {
    const graph = reachable('cli/actions/verify.ts');
    expect([...graph.keys()].filter((n) => n.startsWith('api/') || n === 'undici' || n === 'cli/open.ts')).toEqual([]);
    expect(graph.has('store/index.ts')).toBe(true);
  });
});
