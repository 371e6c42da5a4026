/**
 * Text from users and models made safe to print on a terminal: C0 controls except newline and tab
 * become `\xNN` (`\r` stays `\r`), DEL, C1 controls, line and paragraph separators and
 * bidirectional overrides become `\uNNNN`. A reply or an answer so cannot move the cursor, rewrite
 * earlier lines, change colours, set the window title or reorder what is shown. JSON output stays
 * valid: `JSON.stringify` already escapes C0 controls, and the others only occur inside strings,
 * where `\uNNNN` means the same character.
 *
 * @example
 * terminalText('ok\x1b[2Jgone'); // 'ok\\x1b[2Jgone'
 */
export function terminalText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    if (c === '\r') return '\\r';
    const code = c.charCodeAt(0);
    return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
