import type { EvalReport } from './EvalReport.js';

const pct = (r: { correct: number; total: number; percent: number }) => `${r.percent.toFixed(1)}% (${r.correct}/${r.total})`;

/** The report as text: the accuracies, facts in answers by route, the confusion matrix and the misses. */
export function formatEvalReport(report: EvalReport, options: { misses?: number } = {}): string {
  const routes = Object.keys(report.confusion);
  const lines = [
    `eval of ${report.messages} ${report.split} messages through the customer-service graph (model ${report.model}, ${(report.durationMs / 1000).toFixed(1)} s)`,
    '',
    `  route accuracy       ${pct(report.route)}`,
    `  entity accuracy      ${pct(report.entities)}`,
    `  task-split accuracy  ${pct(report.tasks)}   (messages with several intents)`,
    `  answers with facts   ${pct(report.facts['all']!)}`,
    ...Object.entries(report.facts)
      .filter(([k]) => k !== 'all')
      .map(([k, v]) => `    ${k.padEnd(8)} ${pct(v)}`),
    '',
    'confusion (rows: expected, columns: taken)',
    `  ${''.padEnd(9)}${routes.map((r) => r.padStart(8)).join('')}`,
    ...routes.map((r) => `  ${r.padEnd(9)}${routes.map((p) => String(report.confusion[r]![p] ?? 0).padStart(8)).join('')}`),
  ];
  const misses = report.cases.filter((c) => !c.routeOk || !c.entitiesOk || c.tasksOk === false || c.facts.some((f) => !f.found));
  if (misses.length > 0) {
    lines.push('', `misses (${misses.length})`);
    for (const c of misses.slice(0, options.misses ?? 40)) {
      const why = [
        c.routeOk ? '' : `route ${c.expectedRoute}→${c.route}`,
        c.entitiesOk ? '' : `entities ${JSON.stringify(c.expectedEntities)}→${JSON.stringify(c.entities)}`,
        c.tasksOk === false ? `tasks → [${c.tasks.join(', ')}]` : '',
        c.facts.filter((f) => !f.found).map((f) => (f.note ? `"${f.fact}": ${f.note}` : `missing "${f.fact}"`)).join(', '),
        c.error ? `error: ${c.error}` : '',
      ].filter(Boolean);
      lines.push(`  ${c.id}  ${c.text.length > 70 ? `${c.text.slice(0, 69)}…` : c.text}\n        ${why.join('; ')}`);
    }
  }
  return lines.join('\n');
}
