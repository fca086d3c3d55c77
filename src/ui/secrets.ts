// What the console's listener reads from the files the configuration names: the token and the TLS
// certificate and key. Unreadable or unusable files are configuration errors (exit 2); files others
// may read are served but warned about.

import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Logger } from '../config/logger.js';
import type { Config } from '../config/schema.js';
import { WbsyncError } from '../domain/errors.js';
import { readToken, secretFileWarning } from './security.js';

export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
}

export interface ConsoleSecrets {
  token: string | null;
  tls: TlsMaterial | undefined;
}

function readPem(path: string, key: 'certFile' | 'keyFile'): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new WbsyncError('config', `ui.tls.${key}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'give a readable PEM file' });
  }
}

export function readTlsMaterial(ui: Config['ui']): TlsMaterial | undefined {
  if (ui.tls === undefined) return undefined;
  const material = { cert: readPem(ui.tls.certFile, 'certFile'), key: readPem(ui.tls.keyFile, 'keyFile') };
  try {
    createSecureContext(material);
  } catch (e) {
    throw new WbsyncError('config', `ui.tls: not a usable certificate and key (${(e as Error).message})`, {
      hint: 'give the PEM certificate (chain) and the private key that belongs to it, e.g. `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ui.key -out ui.crt -subj /CN=backup.example.com -days 365`',
    });
  }
  return material;
}

/** Reads the token and the TLS material, logging a warning for each secret file others may read. */
export function readConsoleSecrets(ui: Config['ui'], logger: Logger): ConsoleSecrets {
  const token = ui.tokenFile === undefined ? null : readToken(ui.tokenFile);
  const tls = readTlsMaterial(ui);
  for (const [file, what] of [[ui.tokenFile, 'ui.tokenFile'], [ui.tls?.keyFile, 'ui.tls.keyFile']] as const) {
    const warning = file === undefined ? undefined : secretFileWarning(file, what);
    if (warning) logger.warn({ file, key: what }, warning);
  }
  return { token, tls };
}
