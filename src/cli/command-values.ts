// Values a command's declaration shows in its help and its action uses when it runs: here, so an
// action (loaded only when its command runs) never imports its own declaration back.

/** `wbsync demo`: where it writes, and the boards and column its tour uses. */
export const DEMO_DB = './demo/wbsync.db';
export const DEMO_MODULE = 'Sales Pipeline';
export const ROLLBACK_MODULE = 'Hiring';
export const ROLLBACK_COLUMN = 'Status';

/** `wbsync prune`: each --keep-* flag and the retention policy's key it sets. */
export const RULES = [
  ['keep-last', 'keepLast'],
  ['keep-hourly', 'keepHourly'],
  ['keep-daily', 'keepDaily'],
  ['keep-weekly', 'keepWeekly'],
  ['keep-monthly', 'keepMonthly'],
  ['keep-yearly', 'keepYearly'],
] as const;

/** `wbsync ui`: where the console listens unless --listen says otherwise. */
export const DEFAULT_UI_LISTEN = '127.0.0.1:9465';
