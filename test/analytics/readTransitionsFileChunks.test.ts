import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTransitionsFile, type TransitionRecord } from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempFile = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-read-transitions-'));
  dirs.push(dir);
  return join(dir, name);
};

describe('readTransitionsFile reads a file piece by piece', () => {
  it('gives back every record of a file of several MiB whose lines and multi-byte characters straddle the pieces', () => {
    // Labels of 1 to 4 UTF-8 bytes a character, and lines of varying length, so that the 1 MiB
    // pieces the file is read in end inside lines and inside characters.
    const labels = ['plain', 'naïve', 'route → é', 'emoji 🙂 ok', '中文标签'];
    const records: TransitionRecord[] = [];
    for (let i = 0; i < 24_000; i++) {
      records.push({ runId: `run-${i % 37}`, workflow: 'w', from: `n${i % 5}`, to: `n${(i + 1) % 5}`, at: 1_700_000_000_000 + i, durationMs: i % 13, tokens: i % 7, nodeType: 'node', label: `${labels[i % labels.length]}${'🙂'.repeat(i % 11)}` });
    }
    const file = tempFile('big.jsonl');
    const lines = records.map((r) => JSON.stringify(r));
    // Blank lines (which the reader skips) after the first record move every later byte, until the
    // first piece ends inside a character: the byte at 1 MiB continues a multi-byte one.
    let text = '';
    for (let blank = 0; blank < 400; blank++) {
      text = `\uFEFF${lines[0]}\n${'\n'.repeat(blank)}${lines.slice(1).join('\n')}\n`;
      const byte = Buffer.from(text)[1024 * 1024]!;
      if (byte >= 0x80 && byte < 0xc0) break;
    }
    expect(Buffer.from(text)[1024 * 1024]! & 0xc0).toBe(0x80);
    writeFileSync(file, text);
    expect(Buffer.byteLength(text)).toBeGreaterThan(3 * 1024 * 1024);
    expect(readTransitionsFile(file)).toEqual(records);
    // Without the last newline, the last record still counts; cut short, it is dropped as before.
    writeFileSync(file, text.slice(0, -1));
    expect(readTransitionsFile(file)).toEqual(records);
    writeFileSync(file, text.slice(0, -20));
    expect(readTransitionsFile(file)).toEqual(records.slice(0, -1));
  });

  it('refuses a line longer than any record could be (64 MiB), naming the file, instead of reading it whole', () => {
    const file = tempFile('one-line.jsonl');
    writeFileSync(file, 'x'.repeat(65 * 1024 * 1024));
    expect(() => readTransitionsFile(file)).toThrow(expect.objectContaining({ code: 'invalid_transition_record', message: expect.stringContaining('longer than 64 MiB') }));
  });
});
