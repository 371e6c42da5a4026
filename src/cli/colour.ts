/** Where the CLI writes: whether it is a terminal. */
export interface OutputStream {
  isTTY?: boolean;
}

/**
 * Whether the CLI colours what it writes to `stream`. `NO_COLOR` (set and not empty) turns colour
 * off whatever else is set; `FORCE_COLOR` turns it on even when the output is not a terminal
 * (`FORCE_COLOR=0` or `false` turns it off); otherwise colour is used only on a terminal whose
 * `TERM` is not `dumb`. See https://no-color.org and Node's `FORCE_COLOR`.
 *
 * @example
 * colourEnabled(process.stdout, process.env); // true in an interactive terminal
 */
export function colourEnabled(stream: OutputStream, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  return stream.isTTY === true && env.TERM !== 'dumb';
}

const SGR = { red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', bold: '\x1b[1m', reset: '\x1b[0m' } as const;
type Colour = Exclude<keyof typeof SGR, 'reset'>;
const paint = (text: string, colour: Colour) => `${SGR[colour]}${text}${SGR.reset}`;

/** The colour of a run status: green when it completed, yellow while it waits or runs, red otherwise. */
function statusColour(status: string): Colour {
  if (status === 'completed') return 'green';
  if (status === 'waiting' || status === 'queued' || status === 'running' || status === 'interrupted') return 'yellow';
  return 'red';
}

const STATUS = 'completed|waiting|queued|running|interrupted|failed|cancelled|aborted|max-steps|budget-exceeded';
const GLYPHS: Record<string, Colour> = { '✓': 'green', '✗': 'red', '⏸': 'yellow', '⚠': 'yellow', '↻': 'yellow' };

/**
 * Colours one line the CLI wrote, after its text was made safe (`terminalText`): only the CLI's own
 * marks at fixed places get a colour — a trace line's leading ✓ ✗ ⏸ ⚠ ↻ (after its specialist lane),
 * the status in `run <id>: <status>`, and a leading `switchboard:` or `error:` of an error line —
 * so nothing a user or a model wrote can pick its own colours or move the cursor.
 */
export function colourLine(line: string): string {
  const trace = /^(\s*(?:\S+ │ )?\s*)([✓✗⏸⚠↻])/.exec(line);
  if (trace !== null) return `${trace[1]}${paint(trace[2]!, GLYPHS[trace[2]!]!)}${line.slice(trace[0].length)}`;
  const run = new RegExp(`^(run \\S+: )(${STATUS})\\b`).exec(line);
  if (run !== null) return `${run[1]}${paint(run[2]!, statusColour(run[2]!))}${line.slice(run[0].length)}`;
  const error = /^(switchboard:|error:)( |$)/.exec(line);
  if (error !== null) return `${paint(error[1]!, 'red')}${line.slice(error[1]!.length)}`;
  return line;
}

/** {@link colourLine} for every line of a text. */
export function colourText(text: string): string {
  return text.split('\n').map(colourLine).join('\n');
}
