// The fleet copy's settings from the configuration: the object store (fleet.copies), the recipient
// (fleet.copyRecipient) and the identity (fleet.copyIdentityFile, read when a copy is placed). A
// missing piece is refused with what to set; an identity that does not match the recipient too —
// copies written to one key and read with another would strand every tenant that moves.

import fs from 'node:fs';
import type { Config } from '../config/schema.js';
import { secretFileWarning } from '../config/secret-file.js';
import { WbsyncError } from '../domain/errors.js';
import { parseIdentities } from '../offsite/age-stream.js';
import { createS3Store, type ObjectStore } from '../offsite/object-store.js';

export interface FleetCopySettings {
  objects: ObjectStore;
  root: string;
  recipient: string;
  /** The identity file's secret keys, read on first use (only a placing worker needs them). */
  identities(): Promise<string[]>;
  /** Warnings to log (an identity file others may read). */
  warnings: string[];
  close(): void;
}

export function fleetCopySettings(config: Pick<Config, 'fleet'>): FleetCopySettings {
  const f = config.fleet;
  if (!f.copies.bucket) {
    throw new WbsyncError('config', 'fleet.copies.bucket is not set: tenants cannot move between workers without the fleet copies', {
      hint: 'set fleet.copies.bucket (and fleet.copies.endpoint / forcePathStyle for S3-compatible stores); credentials from the AWS_* environment',
    });
  }
  if (!f.copyRecipient) {
    throw new WbsyncError('config', 'fleet.copyRecipient is not set: fleet copies are only ever written encrypted', {
      hint: "age-keygen -o fleet-identity.txt; put its 'public key: age1…' in fleet.copyRecipient and the file's path in fleet.copyIdentityFile",
    });
  }
  const recipient = f.copyRecipient;
  const warnings: string[] = [];
  const idFile = f.copyIdentityFile;
  if (idFile) {
    const w = secretFileWarning(idFile, 'fleet.copyIdentityFile');
    if (w) warnings.push(w);
  }
  let read: Promise<string[]> | null = null;
  const objects = createS3Store({ bucket: f.copies.bucket, prefix: f.copies.prefix, region: f.copies.region, forcePathStyle: f.copies.forcePathStyle, ...(f.copies.endpoint ? { endpoint: f.copies.endpoint } : {}) });
  return {
    objects,
    root: f.copies.prefix,
    recipient,
    warnings,
    identities: () => (read ??= readIdentities(idFile, recipient)),
    close: () => objects.close(),
  };
}

async function readIdentities(file: string | undefined, recipient: string): Promise<string[]> {
  if (!file) {
    throw new WbsyncError('config', 'fleet.copyIdentityFile is not set: this worker cannot read fleet copies', { hint: 'set it to the age identity file whose public key is fleet.copyRecipient (mode 0600, a mounted Secret)' });
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new WbsyncError('config', `fleet.copyIdentityFile ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'check the path and that the worker\'s user may read it' });
  }
  let ids: string[];
  try {
    ids = parseIdentities(text, file);
  } catch {
    throw new WbsyncError('config', `fleet.copyIdentityFile ${file}: no AGE-SECRET-KEY line in it`, { hint: 'give the file age-keygen wrote (the secret key, not the age1… recipient)' });
  }
  const age = await import('age-encryption');
  const theirs = await Promise.all(ids.map((i) => age.identityToRecipient(i)));
  if (!theirs.includes(recipient)) {
    throw new WbsyncError('config', `fleet.copyIdentityFile ${file} does not hold the secret key of fleet.copyRecipient ${recipient}`, { hint: 'the copies are encrypted to fleet.copyRecipient: give every worker the identity file that matches it' });
  }
  return ids;
}
