import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ImageUpload, InputError, MAX_TEXT_CHARS, MessageText, ReplyText, ResumeRunBody, StartRunBody, ToolBudget, faultNames, wholeNumber } from '../../src/index.js';
import { parseInput } from '../../src/input/parseInput.js';

const issues = (result: { success: boolean; error?: { issues: Array<{ message: string }> } }) => result.error?.issues.map((i) => i.message).join('; ') ?? '';

describe('message and reply text', () => {
  it('refuses blank text, whatever the invisible characters, and keeps the rest trimmed', () => {
    for (const blank of ['', ' ', '\t\n  \r\n', '\u00a0\u2003', '\u200b\ufeff', '\u0007\u001b']) {
      expect(issues(MessageText.safeParse(blank)), JSON.stringify(blank)).toContain('message must not be blank');
      expect(issues(ReplyText.safeParse(blank)), JSON.stringify(blank)).toContain('reply must not be blank');
    }
    expect(MessageText.parse('  Where is my order?\n')).toBe('Where is my order?');
    expect(ReplyText.parse('ok')).toBe('ok');
    expect(MessageText.parse('\u00e9')).toBe('\u00e9');
  });

  it('refuses non-strings, NUL characters and text over the limit, saying by how much', () => {
    expect(issues(MessageText.safeParse(undefined))).toBe('message is required: the text the run starts with');
    expect(issues(ReplyText.safeParse(5))).toBe('reply is required: the text the waiting node receives');
    expect(issues(MessageText.safeParse('a\u0000b'))).toBe('message must not contain NUL characters');
    expect(MessageText.safeParse('x'.repeat(MAX_TEXT_CHARS)).success).toBe(true);
    expect(issues(MessageText.safeParse('x'.repeat(MAX_TEXT_CHARS + 1)))).toBe(`message must be at most ${MAX_TEXT_CHARS} characters; received ${MAX_TEXT_CHARS + 1}`);
  });

  it('is the rule of the HTTP bodies too', () => {
    expect(StartRunBody.safeParse({ message: '\u200b ' }).success).toBe(false);
    expect(issues(ResumeRunBody.safeParse({ reply: ' \u200b' }))).toBe('reply must not be blank (it is empty or only spaces and invisible characters)');
    expect(issues(ResumeRunBody.safeParse({ reply: null }))).toBe('reply is required: the text (or, for a node with a reply schema, the JSON value) the waiting node receives');
    expect(ResumeRunBody.parse({ reply: { approved: true } }).reply).toEqual({ approved: true });
    expect(ResumeRunBody.parse({ reply: ' ok ' }).reply).toBe('ok');
    expect(StartRunBody.parse({ message: ' hi ' }).message).toBe('hi');
  });

  it('takes an uploaded image by its bytes: a signature of an accepted type, which decides the type', () => {
    const png = readFileSync('specialists/vision/fixtures/e02-red-led.png').toString('base64');
    const text = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64');
    expect(issues(ImageUpload.safeParse({ mediaType: 'image/png', base64: text }))).toBe('the bytes are not a image/png, image/jpeg, image/gif, image/webp image (no image signature at the start)');
    expect(ImageUpload.parse({ mediaType: 'image/jpeg', base64: png }).mediaType).toBe('image/png');
    expect(StartRunBody.safeParse({ message: 'hi', image: { mediaType: 'image/gif', base64: text } }).success).toBe(false);
  });
});

describe('whole numbers and the tool budget', () => {
  it('accepts plain decimal digits and integers in range', () => {
    expect(ToolBudget.parse('1')).toBe(1);
    expect(ToolBudget.parse('20')).toBe(20);
    expect(ToolBudget.parse('007')).toBe(7);
    expect(ToolBudget.parse(3)).toBe(3);
  });

  it('refuses everything Number() would have read as something else, naming what it received', () => {
    for (const bad of ['0x10', '1e15', '1e1', '-1', '1.5', '1.0', '', ' 7', '7 ', '+7', 'Infinity', 'NaN', '0', '21', '0b11', '0o7', '١٢', '99999999999999999999']) {
      const result = ToolBudget.safeParse(bad);
      expect(result.success, bad).toBe(false);
      expect(issues(result)).toBe(`tool budget must be a whole number from 1 to 20 in plain decimal digits; received ${JSON.stringify(bad)}`);
    }
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1e15, null, true, [3], { n: 3 }]) {
      expect(ToolBudget.safeParse(bad).success, String(bad)).toBe(false);
    }
    expect(wholeNumber(0, 65_535, 'the port').parse('0')).toBe(0);
    expect(wholeNumber(1, 2 ** 53, 'n').safeParse('9007199254740993').success).toBe(false);
  });
});

describe('fault names', () => {
  const known = ['retrieval_gap', 'tool_timeout'];
  it('accepts known names and refuses unknown ones, listing the known', () => {
    expect(faultNames(known).parse(['tool_timeout', 'retrieval_gap'])).toEqual(['tool_timeout', 'retrieval_gap']);
    expect(faultNames(known).parse([])).toEqual([]);
    expect(issues(faultNames(known).safeParse(['tool_timeout', 'disk_full']))).toBe('unknown fault "disk_full"; known faults: retrieval_gap, tool_timeout');
    expect(issues(faultNames([]).safeParse(['x']))).toBe('unknown fault "x"; known faults: none: the graphs module declares no faults (export `faults`)');
    expect(faultNames(known).safeParse('tool_timeout').success).toBe(false);
    expect(faultNames(known).safeParse([1]).success).toBe(false);
  });
});

describe('parseInput', () => {
  it('throws an InputError (code invalid_input) that names the input', () => {
    const error = (() => {
      try {
        parseInput(ToolBudget, '0x10', '--tool-budget');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ code: 'invalid_input', fault: 'user', retryable: false });
    expect((error as Error).message).toBe('--tool-budget: tool budget must be a whole number from 1 to 20 in plain decimal digits; received "0x10"');
  });
});
