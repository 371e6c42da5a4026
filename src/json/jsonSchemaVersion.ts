/**
 * The version of the JSON shapes the CLI (`--json`) and the HTTP API print: runs, run summaries,
 * events and errors. Each object of those shapes carries it as `schemaVersion`; it goes up when a
 * field is removed, renamed or changes meaning (adding a field does not change it).
 */
export const JSON_SCHEMA_VERSION = 1;
