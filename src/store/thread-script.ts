// Where a worker thread's compiled script is: beside the calling module when it runs from dist/,
// or its compiled twin in dist/ when it runs from the TypeScript sources (vitest; `npm test` builds
// first). The store's writer thread and the fleet's copy check use it.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WbsyncError } from '../domain/errors.js';

/** The URL of `script` (e.g. `writer-thread.worker.js`) next to the module at `fromUrl`
 * (its `import.meta.url`); `what` names the thread in the error when neither exists. */
export function threadScript(script: string, fromUrl: string, what: string): URL {
  const here = new URL(`./${script}`, fromUrl);
  if (fs.existsSync(fileURLToPath(here))) return here;
  const built = new URL(here.href.replace(/\/src\/(?!.*\/src\/)/, '/dist/'));
  if (built.href !== here.href && fs.existsSync(fileURLToPath(built))) return built;
  throw new WbsyncError('internal', `${what} (${script}) is missing`, { hint: 'run `npm run build`' });
}
