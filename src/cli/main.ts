#!/bin/sh
//bin/sh -c :; exec /usr/bin/env node --v8-pool-size=1 "$0" "$@"
// The `wbsync` executable: wires the process (argv, streams, signals) to the CLI.
// Its first two lines are read by sh, which runs node with NODE_FLAGS (config/heap-policy.ts) in
// its own place (exec: the same process id, for the daemon's service manager); to node the second
// line is a comment. `#!/usr/bin/env -S node …` would say it in one line, but BusyBox's env
// (Alpine) and the BSDs' have no -S.

import { applyRuntimePolicy } from '../config/heap-policy.js';
import { runCli } from './run.js';

applyRuntimePolicy();

const controller = new AbortController();
let signals = 0;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    signals += 1;
    if (signals > 1) process.exit(130);
    controller.abort(sig);
  });
}

const code = await runCli(process.argv.slice(2), {
  stdout: { write: (s) => process.stdout.write(s), isTTY: process.stdout.isTTY },
  stderr: { write: (s) => process.stderr.write(s), isTTY: process.stderr.isTTY },
  env: process.env,
  signal: controller.signal,
});
process.exitCode = code;
// Flush stdout before leaving; open handles (sockets, timers) must not keep a finished command alive.
process.stdout.write('', () => process.exit(code));
