// Rewrites the generated parts of docs/ from the code (run `npm run build` first): the configuration
// table of docs/configuration.md and the emulator's route table of docs/emulator.md. Tests fail when
// either page differs from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const { renderConfigTable } = await import(new URL('dist/config/config-table.js', root).href);
const { renderInterfaceMarkdown } = await import(new URL('dist/emulator/interface.js', root).href);
const { allRoutes } = await import(new URL('dist/emulator/routes/index.js', root).href);

function rewrite(file, from, to, text) {
  const path = new URL(file, root);
  const page = readFileSync(path, 'utf8');
  const start = page.indexOf(from);
  const end = to === null ? page.indexOf('\n\n', start) : page.indexOf(to, start);
  if (start < 0 || end < 0) throw new Error(`${file}: markers not found`);
  const head = to === null ? page.slice(0, start) : page.slice(0, start + from.length) + '\n';
  writeFileSync(path, head + text + (to === null ? page.slice(end) : `\n${page.slice(end)}`));
}

rewrite('docs/configuration.md', '| key | env | default | meaning |', null, renderConfigTable());
rewrite('docs/emulator.md', '<!-- generated from the route table: src/emulator/interface.ts (renderInterfaceMarkdown) -->', '<!-- end of generated table -->', renderInterfaceMarkdown(allRoutes));
