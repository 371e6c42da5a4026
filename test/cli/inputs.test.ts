import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMAGE_BYTES, SqliteRunStore } from '../../src/index.js';
import { runCli, runCliAll, type CliResult } from '../support/runCli.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-inputs-'));
const db = join(dir, 'runs.db');
const fifo = join(dir, 'pipe.png');
const textPng = join(dir, 'notes.png');
const hugePng = join(dir, 'huge.png');
const zeroPng = join(dir, 'zero.png');
const passwdTs = join(dir, 'passwd.ts');
const modules = join(dir, 'modules');
const SECRET = 'hunter2-do-not-print';

beforeAll(async () => {
  // A real store file with its tables, so "nothing stored" is checked against real tables.
  await new SqliteRunStore({ file: db }).close();
  execFileSync('mkfifo', [fifo]);
  writeFileSync(textPng, 'just some text, not a picture');
  // A PNG signature followed by a hole: one byte over the limit without writing megabytes.
  writeFileSync(hugePng, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  truncateSync(hugePng, MAX_IMAGE_BYTES + 1);
  // Names that hide what they are: a device and a system file behind a picture and a module name.
  symlinkSync('/dev/zero', zeroPng);
  symlinkSync('/etc/passwd', passwdTs);
  mkdirSync(modules);
  writeFileSync(join(modules, 'package.json'), '{"type":"module"}');
  writeFileSync(join(modules, 'syntax.ts'), `const secret = "${SECRET}";\nexport const graphs = [;\n`);
  writeFileSync(join(modules, 'throws.ts'), `throw new Error('no graphs today');\nexport const graphs = [];\n`);
});

function rows(): { runs: number; events: number } {
  const sqlite = new Database(db, { readonly: true });
  try {
    const count = (table: string) => (sqlite.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { runs: count('runs'), events: count('events') };
  } finally {
    sqlite.close();
  }
}

/** No stack frame, no code frame: one line. */
function expectOneLine(result: CliResult) {
  expect(result.stderr.trimEnd().split('\n'), result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

describe('inputs the CLI refuses before anything is stored', () => {
  it('exits 2 with one line naming the input and the rule, and stores no run', async () => {
    const cases: Array<[string[], string]> = [
      [['run', ''], 'switchboard: message must not be blank (it is empty or only spaces and invisible characters) [invalid_input]'],
      [['run', ' \t \u200b '], 'switchboard: message must not be blank (it is empty or only spaces and invisible characters) [invalid_input]'],
      [['start', 'refund-approval', '   '], 'switchboard: message must not be blank (it is empty or only spaces and invisible characters) [invalid_input]'],
      [['resume', 'any-run', '--reply', ''], 'switchboard: --reply: reply must not be blank (it is empty or only spaces and invisible characters) [invalid_input]'],
      [['run', 'hello', '--fault', 'disk_full'], 'switchboard: --fault: unknown fault "disk_full"; known faults: retrieval_gap, tool_timeout, review_rework [invalid_input]'],
      ...['1e15', '0x10', '-1', '1.5', '0', '21'].map((budget): [string[], string] => [
        ['run', 'hello', `--tool-budget=${budget}`],
        `switchboard: --tool-budget: tool budget must be a whole number from 1 to 20 in plain decimal digits; received "${budget}" [invalid_input]`,
      ]),
      [['run', 'hello', '--image', ''], 'switchboard: --image: the path is empty; pass the file of a PNG, JPEG, GIF or WebP picture [invalid_input]'],
      [['run', 'hello', '--image', '/dev/zero'], 'switchboard: --image "/dev/zero": is a character device, not a picture file; pass the file of a PNG, JPEG, GIF or WebP picture [invalid_input]'],
      [['run', 'hello', '--image', zeroPng], `switchboard: --image "${zeroPng}": is a character device, not a picture file; pass the file of a PNG, JPEG, GIF or WebP picture [invalid_input]`],
      [['run', 'hello', '--image', hugePng], `switchboard: --image "${hugePng}": is ${MAX_IMAGE_BYTES + 1} bytes; at most ${MAX_IMAGE_BYTES} are accepted, send a smaller picture [invalid_input]`],
      [['run', 'hello', '--image', fifo], `switchboard: --image "${fifo}": is a FIFO (named pipe), not a picture file; pass the file of a PNG, JPEG, GIF or WebP picture [invalid_input]`],
      [['run', 'hello', '--image', dir], `switchboard: --image "${dir}": is a directory, not a picture file; pass the file of a PNG, JPEG, GIF or WebP picture [invalid_input]`],
      [
        ['run', 'hello', '--image', textPng],
        `switchboard: --image "${textPng}": is not a PNG, JPEG, GIF or WebP image (its first bytes are no image signature, whatever its name says); pass a picture file [invalid_input]`,
      ],
      [
        ['--graphs', '/etc/passwd', 'run', 'hello'],
        'switchboard: graphs module /etc/passwd: not a JavaScript or TypeScript module (expected a .ts, .mts, .cts, .tsx, .js, .mjs, .cjs, .jsx file exporting `graphs`) [usage]',
      ],
      [['--graphs', join(modules, 'absent.ts'), 'run', 'hello'], `switchboard: graphs module ${join(modules, 'absent.ts')}: not found; pass --graphs <file> exporting \`graphs\` [usage]`],
      [['--graphs', modules, 'run', 'hello'], `switchboard: graphs module ${modules}: not a regular file; pass --graphs <file> exporting \`graphs\` [usage]`],
      [['--graphs', join(modules, 'syntax.ts'), 'run', 'hello'], `switchboard: graphs module ${join(modules, 'syntax.ts')} cannot be loaded: it does not compile at line 2:23: Unexpected ";" [graph_definition]`],
      [['--graphs', join(modules, 'throws.ts'), 'run', 'hello'], `switchboard: graphs module ${join(modules, 'throws.ts')} cannot be loaded: it threw while loading (Error: no graphs today) [graph_definition]`],
      [['--graphs', '', 'run', 'hello'], 'switchboard: --graphs: the path is empty; pass a module file exporting `graphs` [usage]'],
      [['run', 'hello', '--graph', 'nope'], 'switchboard: no graph named "nope" is registered; known: customer-service, refund-approval [usage]'],
      // What the user typed comes back in the message, escaped: it cannot clear the screen or retitle the window.
      [['run', 'hello', '--graph', 'x\u001b[2J\u001b]0;owned\u0007'], 'switchboard: no graph named "x\\x1b[2J\\x1b]0;owned\\x07" is registered; known: customer-service, refund-approval [usage]'],
      [['run', 'hello', '--fault', 'x\u001b[2J'], 'switchboard: --fault: unknown fault "x\\u001b[2J"; known faults: retrieval_gap, tool_timeout, review_rework [invalid_input]'],
    ];
    // A FIFO opened for reading blocks until a writer comes: a command that did so would be killed here and fail.
    const results = await runCliAll(
      cases.map(([args]) => ['--db', db, ...args]),
      { killAfterMs: 300_000 },
    );
    for (const [i, [args, message]] of cases.entries()) {
      const result = results[i]!;
      expect({ args, status: result.status, stderr: result.stderr.trimEnd(), stdout: result.stdout }).toEqual({ args, status: 2, stderr: message, stdout: '' });
      expectOneLine(result);
      expect(result.stderr).not.toContain(SECRET);
      expect(result.stderr).not.toContain('root:');
    }
    expect(rows()).toEqual({ runs: 0, events: 0 });
  }, 600_000);

  it('names SWITCHBOARD_GRAPHS when the module path that names no file came from it, not only --graphs', async () => {
    const absent = join(modules, 'absent-from-env.ts');
    const [fromEnv, flagWins] = await Promise.all([
      runCli(['--db', db, 'run', 'hello'], { env: { SWITCHBOARD_GRAPHS: absent } }),
      runCli(['--db', db, '--graphs', modules, 'run', 'hello', '--json'], { env: { SWITCHBOARD_GRAPHS: absent } }),
    ]);
    expect({ status: fromEnv.status, stderr: fromEnv.stderr.trimEnd(), stdout: fromEnv.stdout }).toEqual({
      status: 2,
      stderr: `switchboard: graphs module ${absent} (from SWITCHBOARD_GRAPHS): not found; set SWITCHBOARD_GRAPHS to a module file exporting \`graphs\`, or pass --graphs <file> [usage]`,
      stdout: '',
    });
    // --graphs wins over the environment, and the message names only the flag's path.
    expect(flagWins.status).toBe(2);
    expect(JSON.parse(flagWins.stderr)).toEqual({ schemaVersion: 1, error: { code: 'usage', message: `graphs module ${modules}: not a regular file; pass --graphs <file> exporting \`graphs\`` } });
    expect(rows()).toEqual({ runs: 0, events: 0 });
  }, 120_000);

  it('under --json the refusal is JSON on stderr and stdout stays empty', async () => {
    const [fault, graphs] = await Promise.all([
      runCli(['--db', db, 'run', 'hello', '--fault', 'disk_full', '--json']),
      runCli(['--db', db, '--graphs', join(modules, 'syntax.ts'), 'run', 'hello', '--json']),
    ]);
    expect(fault).toMatchObject({ status: 2, stdout: '' });
    expect(JSON.parse(fault.stderr)).toEqual({ schemaVersion: 1, error: { code: 'invalid_input', message: '--fault: unknown fault "disk_full"; known faults: retrieval_gap, tool_timeout, review_rework' } });
    expect(graphs).toMatchObject({ status: 2, stdout: '' });
    expect(JSON.parse(graphs.stderr).error.code).toBe('graph_definition');
    expect(graphs.stderr).not.toContain(SECRET);
    expect(rows()).toEqual({ runs: 0, events: 0 });
  }, 120_000);

  it('a graphs module that is a system file under a module name is one line without its contents; --debug adds the stack, still without them', async () => {
    const [passwd, debug] = await Promise.all([
      runCli(['--db', db, '--graphs', passwdTs, 'run', 'hello']),
      runCli(['--db', db, '--graphs', join(modules, 'syntax.ts'), 'run', 'hello', '--debug']),
    ]);
    expect(passwd).toMatchObject({ status: 2, stdout: '' });
    expect(passwd.stderr).toMatch(new RegExp(`^switchboard: graphs module ${passwdTs} cannot be loaded: it is not valid JavaScript or TypeScript \\(SyntaxError: [^\\n]*\\) \\[graph_definition\\]\\n$`));
    expect(passwd.stderr).not.toContain('root:');
    expectOneLine(passwd);

    expect(debug).toMatchObject({ status: 2, stdout: '' });
    const [first, ...stack] = debug.stderr.trimEnd().split('\n');
    expect(first).toBe(`switchboard: graphs module ${join(modules, 'syntax.ts')} cannot be loaded: it does not compile at line 2:23: Unexpected ";" [graph_definition]`);
    expect(stack[0]).toMatch(/^GraphDefinitionError: /);
    expect(stack.filter((line) => /^\s+at /.test(line)).length).toBeGreaterThan(0);
    expect(debug.stderr).not.toContain(SECRET);
    expect(rows()).toEqual({ runs: 0, events: 0 });
  }, 120_000);

  it('a blank reply to a waiting run is refused and the run still waits, with nothing added', async () => {
    const replyDb = join(dir, 'blank-reply.db');
    const started = await runCli(['--db', replyDb, 'start', 'refund-approval', 'Refund SO20261001', '--json']);
    expect(started.status, started.stderr).toBe(3);
    const { runId } = JSON.parse(started.stdout) as { runId: string };
    const eventsOf = () => {
      const sqlite = new Database(replyDb, { readonly: true });
      try {
        return (sqlite.prepare('SELECT COUNT(*) AS n FROM events WHERE run_id = ?').get(runId) as { n: number }).n;
      } finally {
        sqlite.close();
      }
    };
    const before = eventsOf();
    const blank = 'reply must not be blank (it is empty or only spaces and invisible characters) [invalid_input]';
    const refused = await runCliAll([
      ['--db', replyDb, 'resume', runId, '--reply', ''],
      ['--db', replyDb, 'resume', runId, '--reply', ' \u200b\t'],
      ['--db', replyDb, 'resume', runId, '--reply-json', '"  "'],
      ['--db', replyDb, 'resume', runId, '--reply-json', 'null'],
    ]);
    expect(refused.map((r) => [r.status, r.stdout, r.stderr.trimEnd()])).toEqual([
      [2, '', `switchboard: --reply: ${blank}`],
      [2, '', `switchboard: --reply: ${blank}`],
      [2, '', `switchboard: --reply-json: ${blank}`],
      [2, '', 'switchboard: --reply-json: reply is required: the text (or, for a node with a reply schema, the JSON value) the waiting node receives [invalid_input]'],
    ]);
    expect(eventsOf()).toBe(before);
    const shown = await runCli(['--db', replyDb, 'show', runId, '--json']);
    expect((JSON.parse(shown.stdout) as { status: string }).status).toBe('waiting');

    const resumed = await runCli(['--db', replyDb, 'resume', runId, '--reply', 'approved']);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('answer: Refund for SO20261001: approved');
  }, 180_000);
});

describe('text from users and models on the terminal', () => {
  const hostile = 'hi \u001b[2J\u001b[31mred\u001b]0;owned\u0007 back\rover \u009b31m \u202eevil\u0000';
  const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

  it('escapes control characters in answers, trace lines, errors and replies; JSON keeps the text exactly', async () => {
    const echoDb = join(dir, 'echo.db');
    const graphs = ['--graphs', 'test/fixtures/echoGraphs.ts'];
    const printable = hostile.replace('\u0000', '');
    const [answer, asJson, refused, started] = await Promise.all([
      runCli(['--db', echoDb, ...graphs, 'run', printable, '--graph', 'echo']),
      runCli(['--db', echoDb, ...graphs, 'run', printable, '--graph', 'echo', '--json']),
      runCli(['--db', echoDb, ...graphs, 'run', printable, '--graph', 'refuse']),
      runCli(['--db', join(dir, 'reply.db'), 'start', 'refund-approval', 'Refund SO20261001', '--json']),
    ]);
    expect(answer.status, answer.stderr).toBe(0);
    expect(answer.stdout).not.toMatch(controls);
    expect(answer.stdout).toContain('you said: hi \\x1b[2J\\x1b[31mred\\x1b]0;owned\\x07 back\\rover \\u009b31m \\u202eevil');

    expect(asJson.status, asJson.stderr).toBe(0);
    expect(asJson.stdout).not.toMatch(controls);
    expect((JSON.parse(asJson.stdout) as { outputText: string }).outputText).toBe(`you said: ${printable.trim()}`);

    // The stored runs print escaped too: the answer and the error as `show` prints them, the list as `runs` does.
    const { runId: echoId } = JSON.parse(asJson.stdout) as { runId: string };
    const refusedId = /^run (\S+): failed/m.exec(refused.stdout)?.[1];
    expect(refusedId, `exit ${String(refused.status)}\n${refused.stdout}\n${refused.stderr}`).toBeDefined();
    const [shownAnswer, shownError, listed] = await Promise.all([
      runCli(['--db', echoDb, ...graphs, 'show', echoId]),
      runCli(['--db', echoDb, ...graphs, 'show', refusedId!]),
      runCli(['--db', echoDb, ...graphs, 'runs']),
    ]);
    for (const shown of [shownAnswer, shownError, listed]) {
      expect(shown.status, shown.stderr).toBe(0);
      expect(shown.stdout).not.toMatch(controls);
    }
    expect(shownAnswer.stdout).toContain('answer: you said: hi \\x1b[2J\\x1b[31mred\\x1b]0;owned\\x07 back\\rover \\u009b31m \\u202eevil');
    expect(shownError.stdout).toContain('error: node_failed: node "refuse" failed: cannot handle hi \\x1b[2J\\x1b[31mred');
    expect(listed.stdout).toContain(echoId);

    expect(refused.status).toBe(1);
    expect(refused.stdout).not.toMatch(controls);
    expect(refused.stdout).toMatch(/✗ refuse\s+node "refuse" failed: cannot handle hi \\x1b\[2J/);
    expect(refused.stdout).toContain('error: node "refuse" failed: cannot handle hi \\x1b[2J\\x1b[31mred\\x1b]0;owned\\x07 back\\rover \\u009b31m \\u202eevil [node_failed]');

    expect(started.status, started.stderr).toBe(3);
    const { runId } = JSON.parse(started.stdout) as { runId: string };
    const resumed = await runCli(['--db', join(dir, 'reply.db'), 'resume', runId, '--reply', `approved ${printable}`]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).not.toMatch(controls);
    expect(resumed.stdout).toContain('answer: Refund for SO20261001: approved hi \\x1b[2J\\x1b[31mred');
  }, 180_000);
});
