// `wbsync restore workspace ID`: the whole workspace back, here or on another service
// (--target-url with --target-key-file), users mapped with --map-users FILE. Part of `restore`.
// What it does, loaded only when it runs (its help and flags: ../commands/restore-workspace.ts).

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { shown } from '../../domain/display-text.js';
import { WbsyncError } from '../../domain/errors.js';
import { restoreWorkspace } from '../../restore/index.js';
import type { CommandContext, FlagValues } from '../command.js';
import { intFlag, stringFlag } from '../flag-values.js';
import { runJournaledCommand, type TargetService } from '../open.js';
import { countsLine, notRestoredLines, planLines } from './restore-output.js';

const UserMapSchema = z.record(z.string().min(1), z.string().min(1));

function readFileFlag(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new WbsyncError('usage', `${flag} ${shown(path)}: cannot read it (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'give a readable file' });
  }
}

/** --map-users FILE: a JSON object, old user id → user id on the target. */
export function readUserMap(path: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileFlag(path, '--map-users'));
  } catch (e) {
    if (e instanceof WbsyncError) throw e;
    throw new WbsyncError('usage', `--map-users ${shown(path)}: not JSON (${shown((e as Error).message)})`, { hint: 'write it as {"<old user id>": "<user id on the target>", ...}' });
  }
  const r = UserMapSchema.safeParse(parsed);
  if (!r.success) throw new WbsyncError('usage', `--map-users ${shown(path)}: ${r.error.issues.map((i) => `${shown(i.path.join('.')) || '(top)'}: ${shown(i.message)}`).join('; ')}`, { hint: 'write it as {"<old user id>": "<user id on the target>", ...}' });
  return new Map(Object.entries(r.data));
}

/** --target-url with --target-key-file: another service to write to (the key read from the file). */
export function targetOf(flags: FlagValues): TargetService | undefined {
  const url = stringFlag(flags, 'target-url');
  const keyFile = stringFlag(flags, 'target-key-file');
  if (!url && !keyFile) return undefined;
  if (!url || !keyFile) throw new WbsyncError('usage', '--target-url and --target-key-file go together', { hint: 'the key of the other service is read from a file, never from the command line' });
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new WbsyncError('usage', `--target-url: expected an http(s) URL, got '${shown(url)}'`);
  const apiKey = readFileFlag(keyFile, '--target-key-file').trim();
  if (!apiKey) throw new WbsyncError('usage', `--target-key-file ${shown(keyFile)} is empty`);
  return { baseUrl: url.replace(/\/+$/, ''), apiKey };
}

async function runRestoreWorkspace(ctx: CommandContext, id: string, flags: FlagValues): Promise<number> {
  const into = stringFlag(flags, 'into-workspace');
  const newName = stringFlag(flags, 'new-name');
  if (into && newName) throw new WbsyncError('usage', '--into-workspace and --new-name exclude each other', { hint: 'restore into an existing workspace, or create one with a new name' });
  const mapFile = stringFlag(flags, 'map-users');
  const userMap = mapFile ? readUserMap(mapFile) : undefined;
  const target = targetOf(flags);
  const { config } = ctx.config();
  return runJournaledCommand(
    ctx,
    ({ client, store, onProgress }) =>
      restoreWorkspace(
        { client, store, logger: ctx.logger() },
        {
          workspaceId: id,
          snapshotId: intFlag(flags, 'snapshot', 'restore workspace'),
          ...(into ? { intoWorkspace: into } : {}),
          ...(newName ? { newName } : {}),
          ...(userMap ? { userMap } : {}),
          pauseAutomations: flags['pause-automations'] === true,
          dryRun: flags['dry-run'] === true,
          attribution: config.restore.attribution,
          signal: ctx.signal,
          onProgress,
        },
      ),
    (r) => {
      const lines: string[] = [];
      const where = into ? `into workspace ${into}` : `as a new workspace '${shown(r.name)}'${target ? ` on ${shown(target.baseUrl)}` : ''}`;
      if (r.plan) lines.push(`workspace ${r.sourceWorkspaceId} from snapshot ${r.snapshot} ${where}`, ...planLines(r.plan));
      else if (r.alreadyRestored) lines.push(`workspace ${r.sourceWorkspaceId} was already restored by run ${r.runId}: ${r.workspaceId}`);
      else lines.push(`restored workspace ${r.sourceWorkspaceId} from snapshot ${r.snapshot} ${where}: ${r.workspaceId}${r.resumed ? ' (resumed)' : ''}`);
      lines.push(`  members: ${r.members.toAdd} to add${r.members.present ? `, ${r.members.present} already there` : ''}${r.members.refused ? `, ${r.members.refused} refused (not on the target: map them with --map-users)` : ''}`);
      for (const m of r.modules) lines.push(`  module ${shown(m.name)} (${m.sourceModuleId})${m.moduleId ? ` → ${m.moduleId}` : ''}: ${countsLine(m.counts)}`);
      lines.push(`  automations: ${r.automations.module} of modules, ${r.automations.workspace} of the workspace`);
      if (!r.plan) lines.push(`  ${r.requests} requests in ${(r.durationMs / 1000).toFixed(1)} s`);
      return [...lines, ...notRestoredLines(r.notRestored)];
    },
    { command: 'restore workspace', dryRun: flags['dry-run'] === true, ...(target ? { target } : {}) },
  );
}

export async function runRestoreWorkspaceCommand(ctx: CommandContext): Promise<number> {
  const [id] = ctx.args.positionals;
  if (!id) throw new WbsyncError('usage', 'restore workspace needs a workspace id', { hint: "see 'wbsync restore workspace --help'" });
  return runRestoreWorkspace(ctx, id, ctx.args.flags);
}
