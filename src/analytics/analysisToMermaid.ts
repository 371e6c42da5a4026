import { START_STATE, statusOfState } from './TransitionRecord.js';
import type { TransitionAnalysis } from './analyzeTransitions.js';

/** Text safe inside a Mermaid label: characters that end one, start a comment or a block, or would be read as HTML, become entity codes. */
function safe(text: string): string {
  return text.replace(/[#;:"%{}<>&\n\r]/g, (c) => (c === '\n' || c === '\r' ? ' ' : `#${c.charCodeAt(0)};`));
}

/** A probability as a label: two decimals, three below 1 %, and `<0.001` below that. */
export function formatProbability(p: number): string {
  if (p >= 0.01 || p === 0) return p.toFixed(2);
  return p >= 0.001 ? p.toFixed(3) : '<0.001';
}

/**
 * The estimated chain as a Mermaid `stateDiagram-v2`: the start is `[*]`, each node a state, each
 * final status a state (`end: completed`) that leads to `[*]`, and every edge a run took labelled by
 * its probability (and its count).
 *
 * @example
 * fs.writeFileSync('chain.mmd', analysisToMermaid(analyzeTransitions(records)));
 */
export function analysisToMermaid(analysis: TransitionAnalysis, options: { direction?: 'TB' | 'LR' } = {}): string {
  const ids = new Map<string, string>();
  const used = new Set<string>();
  analysis.states.forEach((state) => {
    if (state === START_STATE) return ids.set(state, '[*]');
    const status = statusOfState(state);
    const base = status === null ? `n_${state.replace(/[^A-Za-z0-9_]/g, '_')}` : `end_${status.replace(/[^A-Za-z0-9_]/g, '_')}`;
    let id = base;
    for (let i = 2; used.has(id); i++) id = `${base}_${i}`;
    used.add(id);
    ids.set(state, id);
  });
  const lines = ['stateDiagram-v2', `  direction ${options.direction ?? 'TB'}`];
  for (const state of analysis.states) {
    if (state === START_STATE) continue;
    const status = statusOfState(state);
    lines.push(`  state "${safe(status === null ? state : `end: ${status}`)}" as ${ids.get(state)!}`);
  }
  analysis.states.forEach((from, i) => {
    if (i >= analysis.transient.length) return;
    analysis.states.forEach((to, j) => {
      const count = analysis.counts[i]![j]!;
      if (count === 0) return;
      lines.push(`  ${ids.get(from)!} --> ${ids.get(to)!} : ${formatProbability(analysis.matrix[i]![j]!)} (${count})`);
    });
  });
  for (const state of analysis.absorbing) if (statusOfState(state) !== null) lines.push(`  ${ids.get(state)!} --> [*]`);
  return `${lines.join('\n')}\n`;
}
