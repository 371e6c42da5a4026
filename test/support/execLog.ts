import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * A fresh TRAVEL_EXEC_LOG file for each test of the calling file (the time-travel fixtures append
 * each node they execute to it), and `executedSince()`: the nodes executed since its last call.
 */
export function useExecLog(): { executedSince(): string[]; file(): string } {
  let execLog = '';
  beforeEach(() => {
    execLog = join(mkdtempSync(join(tmpdir(), 'sb-exec-')), 'exec.log');
    writeFileSync(execLog, '');
    process.env['TRAVEL_EXEC_LOG'] = execLog;
  });
  afterEach(() => {
    delete process.env['TRAVEL_EXEC_LOG'];
  });
  return {
    executedSince() {
      const lines = readFileSync(execLog, 'utf8').split('\n').filter(Boolean);
      writeFileSync(execLog, '');
      return lines;
    },
    file: () => execLog,
  };
}
