// The start form's run options: budgets (the CLI's --max-cost, --max-tokens, --max-iterations,
// --max-duration) and faults to inject (the names the graphs module declares). The server checks
// every value (POST /api/runs); a refusal shows under the form.

const BUDGETS = [
  ['maxCost', 'max cost (USD)', 'e.g. 0.05', 'decimal'],
  ['maxTokens', 'max tokens', 'e.g. 20000', 'numeric'],
  ['maxIterations', 'max steps', 'e.g. 30', 'numeric'],
  ['maxDuration', 'max duration (ms)', 'e.g. 60000', 'numeric'],
];

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

/**
 * Builds the options into `container`: `values()` gives `{ budget?, faults? }` for the start body
 * (empty fields left out, values sent as typed), `setFaults(names)` lists the faults to choose from.
 */
export function createRunOptions(container) {
  const inputs = new Map();
  const budgets = el('fieldset', { className: 'budgets' }, el('legend', { textContent: 'Budgets' }));
  for (const [key, label, placeholder, inputMode] of BUDGETS) {
    const input = el('input', { id: `budget-${key}`, name: key, placeholder, inputMode, autocomplete: 'off' });
    inputs.set(key, input);
    budgets.append(el('label', {}, `${label} `, input));
  }
  const faults = el('fieldset', { className: 'faults', id: 'faults', hidden: true }, el('legend', { textContent: 'Inject faults' }));
  const details = el('details', { className: 'run-options' }, el('summary', { textContent: 'Run options' }), budgets, faults);
  container.replaceChildren(details);
  return {
    setFaults(names) {
      faults.replaceChildren(el('legend', { textContent: 'Inject faults' }), ...names.map((name) => el('label', {}, el('input', { type: 'checkbox', name: 'fault', value: name }), ` ${name}`)));
      faults.hidden = names.length === 0;
    },
    values() {
      const budget = {};
      for (const [key, input] of inputs) if (input.value.trim() !== '') budget[key] = input.value.trim();
      const chosen = [...faults.querySelectorAll('input[name="fault"]:checked')].map((box) => box.value);
      return { ...(Object.keys(budget).length ? { budget } : {}), ...(chosen.length ? { faults: chosen } : {}) };
    },
  };
}
