// `wbsync offsite push | list | fetch | verify`: age-encrypted copies of the latest snapshot in
// S3-compatible storage. The daemon's host holds only public keys; --identity is read at recovery.

import type { Command } from '../command.js';

export const offsiteCommand: Command = {
  name: 'offsite',
  summary: 'age-encrypted copies in S3-compatible storage: push, list, fetch, verify',
  usage: 'wbsync offsite push | list | fetch [--snapshot N] --identity FILE --out FILE | verify [--identity FILE]',
  description:
    'push: a consistent copy of the latest complete snapshot (what export makes), streamed through age\n' +
    'encryption to offsite.recipients (public keys) into offsite.bucket under offsite.prefix, with a\n' +
    'manifest (snapshot, time, sizes, SHA-256 of the ciphertext, counts); then offsite.retention.* forgets\n' +
    'older copies (never the newest). The daemon pushes after each full pass (offsite.afterFullPass).\n' +
    'list: the copies, oldest first. fetch: downloads one (the newest, or --snapshot N), checks its\n' +
    'SHA-256, decrypts it with --identity FILE (the age secret key, read only now) into --out FILE (0600,\n' +
    'never overwritten) and checks the database. verify: every copy\'s SHA-256 against its manifest;\n' +
    'with --identity, the newest is also read back in full. Credentials: the standard AWS environment\n' +
    'variables or files, never the configuration or a flag. Exit 5 when verify finds a bad copy.',
  examples: ['wbsync offsite push', 'wbsync offsite list', 'wbsync offsite fetch --identity ./backup-key.txt --out restored.db', 'wbsync offsite verify --identity ./backup-key.txt'],
  positionals: [{ name: 'push|list|fetch|verify', description: 'what to do', required: true }],
  flags: [
    { name: 'snapshot', type: 'number', valueName: 'N', description: 'fetch: the copy of this snapshot (default: the newest)' },
    { name: 'identity', type: 'string', valueName: 'FILE', description: 'fetch, verify: the age identity (secret key) file' },
    { name: 'out', type: 'string', valueName: 'FILE', description: 'fetch: where to write the decrypted database' },
  ],
  run: async (ctx) => (await import('../actions/offsite.js')).runOffsiteCommand(ctx),
};
