// `wbsync restore workspace ID`: the whole workspace back, here or on another service
// (--target-url with --target-key-file), users mapped with --map-users FILE. Part of `restore`.

import type { Command } from '../command.js';

export const restoreWorkspaceCommand: Command = {
  name: 'workspace',
  summary: 'recreate a whole workspace, here or on another service',
  usage: 'wbsync restore workspace ID [--snapshot N] [--into-workspace WS | --new-name NAME] [--target-url URL --target-key-file F] [--map-users FILE] [--pause-automations] [--dry-run]',
  description:
    'Recreates a whole workspace from snapshot N (default: the latest holding it) — name, description,\n' +
    'icon, banner, members with their roles, every module with everything restore module restores,\n' +
    "relations between the modules remapped, module-access grants and the workspace's automations — as\n" +
    'a new workspace (its name, or --new-name) or into an existing one (--into-workspace). With\n' +
    '--target-url and --target-key-file every write goes to another service (a new instance after the\n' +
    'old one was lost); --map-users FILE (JSON: {"old user id": "new user id"}) maps members, person\n' +
    'cells, grants and automations; a user the target lacks is reported. Refused (exit 6, nothing written)\n' +
    'when the name is taken on the target, or the target key cannot create workspaces. One journal:\n' +
    'running the same command again resumes and creates nothing twice.',
  examples: [
    'wbsync restore workspace 65f0c0ffee0000000000aaaa --dry-run',
    'wbsync restore workspace 65f0c0ffee0000000000aaaa --new-name Ops-restored --json',
    'wbsync restore workspace 65f0c0ffee0000000000aaaa --target-url https://boards.new.example.com --target-key-file ./new.key --map-users users.json',
  ],
  positionals: [{ name: 'ID', description: 'the id of the workspace to restore', required: true }],
  flags: [
    { name: 'snapshot', type: 'number', valueName: 'N', description: 'restore from this snapshot (default: the latest holding it)' },
    { name: 'into-workspace', type: 'string', valueName: 'WS', description: 'restore into this existing workspace' },
    { name: 'new-name', type: 'string', valueName: 'NAME', description: 'name of the workspace to create (default: the original name)' },
    { name: 'target-url', type: 'string', valueName: 'URL', description: 'write to this other service' },
    { name: 'target-key-file', type: 'string', valueName: 'FILE', description: "the other service's key, read from this file" },
    { name: 'map-users', type: 'string', valueName: 'FILE', description: 'JSON object of old user id → user id on the target' },
    { name: 'pause-automations', type: 'boolean', description: "pause the target workspace's active automations during the restore" },
    { name: 'dry-run', type: 'boolean', description: 'print the plan and write nothing' },
  ],
  run: async (ctx) => (await import('../actions/restore-workspace.js')).runRestoreWorkspaceCommand(ctx),
};
