// Commander's parse errors as wbsync usage errors: one line, the command named, commander's own
// typo suggestion kept, the hint pointing at the right --help — and the API key refused on the
// command line without ever echoing a value.

import { shown } from '../domain/display-text.js';
import type { CommanderError } from 'commander';
import { WbsyncError } from '../domain/errors.js';
import type { FlagSpec } from './command.js';

/** Where parsing got to, kept by program.ts while commander walks the command line. */
export interface ParseState {
  /** `wbsync restore module`: the command being parsed when the error came. */
  path: string;
  flagsByPath: Map<string, FlagSpec[]>;
  secretsAllowed: Map<string, boolean>;
}

const SECRET_FLAGS = new Set(['api-key', 'apikey', 'key', 'token', 'pit']);

function suggestionOf(message: string): string | null {
  const m = /\(Did you mean (?:one of )?([^?]+)\?\)/.exec(message);
  return m ? m[1]!.split(',')[0]!.trim() : null;
}

/** The first quoted word of commander's message (`unknown option '--ful'` -> `--ful`). */
/** The word commander quoted in its message: from the command line, so shown on its line. */
function quoted(message: string): string {
  return shown(/'([^']*)'/.exec(message)?.[1] ?? '');
}

export function usageErrorOf(e: CommanderError, state: ParseState): WbsyncError {
  const path = state.path;
  const name = path.replace(/^wbsync ?/, '');
  const hint = { hint: `see '${path} --help'` };
  const suggestion = suggestionOf(e.message);
  switch (e.code) {
    case 'commander.unknownOption': {
      // never the value: `--api-key=SECRET` names only the flag
      const flag = quoted(e.message).split('=')[0]!;
      const bare = flag.replace(/^--?/, '');
      if (SECRET_FLAGS.has(bare.toLowerCase()) && !state.secretsAllowed.get(path)) {
        return new WbsyncError('usage', `${flag}: the key is never accepted on the command line (it would leak into shell history and process lists)`, {
          hint: 'set WBSYNC_API_KEY, or WBSYNC_API_KEY_FILE to a file holding the key',
        });
      }
      const known = state.flagsByPath.get(path)?.find((f) => f.name === bare);
      if (known?.type === 'boolean') return new WbsyncError('usage', `${flag} takes no value`, hint);
      if (!name) {
        return new WbsyncError('usage', `unknown flag ${flag} before the command${suggestion ? `; did you mean ${suggestion}?` : ''}`, {
          hint: "only --config, --db, --log-level and --json may come before the command; see 'wbsync --help'",
        });
      }
      return new WbsyncError('usage', `unknown flag ${flag} for '${name}'${suggestion ? `; did you mean ${suggestion}?` : ''}`, hint);
    }
    case 'commander.unknownCommand': {
      const what = quoted(e.message);
      if (!name) {
        return new WbsyncError('usage', `unknown command '${what}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`, {
          hint: "run 'wbsync --help' for the list of commands",
        });
      }
      return new WbsyncError('usage', `unknown command '${name} ${what}'${suggestion ? `; did you mean '${name} ${suggestion}'?` : ''}`, hint);
    }
    case 'commander.optionMissingArgument': {
      const flag = quoted(e.message).split(' ')[0]!;
      const spec = state.flagsByPath.get(path)?.find((f) => `--${f.name}` === flag);
      return new WbsyncError('usage', `${flag} needs a value (${spec?.valueName ?? 'VALUE'})${name ? '' : ' and then a command'}`, hint);
    }
    case 'commander.missingArgument':
      return new WbsyncError('usage', `'${name}' needs ${quoted(e.message)}`, hint);
    default:
      return new WbsyncError('usage', shown(e.message.replace(/^error: /, '').replace(/\s*\n\s*/g, '; ')), hint);
  }
}
