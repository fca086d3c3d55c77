// Secret files (the API key file, the console's token and TLS key) should be readable by their owner
// only: wbsync still reads a looser one, but says so.

import { statSync } from 'node:fs';

/** A warning when others than the owner may read a secret file (mode & 0o077), or undefined. */
export function secretFileWarning(path: string, what: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  const who = mode & 0o007 ? 'everyone on this machine' : 'its group';
  return `${what} ${path} is readable by ${who} (mode 0${mode.toString(8)}): make it readable by its owner only (chmod 600; a mounted secret: mode 0400)`;
}
