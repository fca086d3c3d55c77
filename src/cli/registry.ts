// Every command of the CLI, in help order.

import type { Command } from './command.js';
import { daemonCommand } from './commands/daemon.js';
import { demoCommand } from './commands/demo.js';
import { diffCommand } from './commands/diff.js';
import { drillCommand } from './commands/drill.js';
import { emulatorCommand } from './commands/emulator.js';
import { eraseCommand } from './commands/erase.js';
import { exportCommand } from './commands/export.js';
import { fleetCommand } from './commands/fleet.js';
import { offsiteCommand } from './commands/offsite.js';
import { pruneCommand } from './commands/prune.js';
import { restoreCommand } from './commands/restore.js';
import { rollbackCommand } from './commands/rollback.js';
import { snapshotsCommand } from './commands/snapshots.js';
import { syncCommand } from './commands/sync.js';
import { uiCommand } from './commands/ui.js';
import { verifyCommand } from './commands/verify.js';

export const COMMANDS: Command[] = [
  syncCommand,
  daemonCommand,
  snapshotsCommand,
  diffCommand,
  restoreCommand,
  rollbackCommand,
  drillCommand,
  pruneCommand,
  eraseCommand,
  exportCommand,
  offsiteCommand,
  verifyCommand,
  uiCommand,
  fleetCommand,
  emulatorCommand,
  demoCommand,
];
