// Export: the standalone copy (export), the plain files per view (export-files, row-text,
// view-sources) and the temporary folder both are written into (export-temp). Outside src/store/
// imports them from here; `wbsync export` itself goes through the Store port.
export * from './export-files.js';
export * from './view-sources.js';
export * from './copy-check.js';
