// The migration registry, in order. Later features append their own (e.g. a restore journal):
// add `NNN-name.ts` exporting a Migration and push it here with the next version number.
import { migration001 } from './001-snapshots.js';
import { migration002 } from './002-entity-versions.js';
import { migration003 } from './003-reporting-views.js';
import { migration004 } from './004-search.js';
import { migration005 } from './005-restore-journal.js';
import { migration006 } from './006-references.js';
import { migration007 } from './007-verification.js';
import { migration008 } from './008-restore-refusals.js';
import { migration009 } from './009-tie-ranks.js';
import { migration010 } from './010-rollback-runs.js';
import { migration011 } from './011-retention.js';
import { migration012 } from './012-reporting-speed.js';
import { migration013 } from './013-workspace-runs.js';
import { migration014 } from './014-forget-anchors.js';
import { migration021 } from './021-search-cells.js';
import { migration022 } from './022-cell-pairs-covering.js';
import { migration015 } from './015-erasures.js';
import { migration016 } from './016-incidents.js';
import { migration017 } from './017-activity-history.js';
import { migration025 } from './025-unplaced-sub-records.js';
import { migration026 } from './026-module-record-spans.js';
import { migration031 } from './031-deferred-indexes.js';
import type { Migration } from './types.js';

export type { Migration } from './types.js';

export const MIGRATIONS: readonly Migration[] = [migration001, migration002, migration003, migration004, migration005, migration006, migration007, migration008, migration009, migration010, migration011, migration012, migration013, migration014, migration015, migration016, migration017, migration021, migration022, migration025, migration026, migration031];
