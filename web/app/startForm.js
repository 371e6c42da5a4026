// The start form's run options: the model to run on (the names the server offers, the default
// first), budgets (the CLI's --max-cost, --max-tokens, --max-iterations, --max-duration) and faults
// to inject (the names the graphs module declares). The server checks every value
// (POST /api/runs); a refusal shows under the form.

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
 * The model a run used, from its events: the `runModel` (RUN_MODEL_KEY) its nodes wrote to the state (a graph built
 * with a model catalog records the one it runs on); null for a run that recorded none (a graph that
 * takes no model choice ignores the one its start asked for).
 */
export function runModelOf(events) {
  for (const event of events) {
    const set = event.delta?.set;
    if (set && typeof set.runModel === 'string') return set.runModel;
  }
  return null;
}

/**
 * Builds the options into `container`: `values()` gives `{ model?, budget?, faults? }` for the
 * start body (empty fields left out, values sent as typed), `setModels(names)` lists the models to
 * run on (the first selected; the select shows only when there are any), `setFaults(names)` the
 * faults to choose from.
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
  const modelSelect = el('select', { id: 'model-select', name: 'model' });
  const models = el('label', { className: 'model-choice', hidden: true }, 'model ', modelSelect);
  const details = el('details', { className: 'run-options' }, el('summary', { textContent: 'Run options' }), models, budgets, faults);
  container.replaceChildren(details);
  return {
    setModels(names) {
      modelSelect.replaceChildren(...names.map((name, i) => el('option', { value: name, textContent: i === 0 ? `${name} (default)` : name, selected: i === 0 })));
      models.hidden = names.length === 0;
    },
    setFaults(names) {
      faults.replaceChildren(el('legend', { textContent: 'Inject faults' }), ...names.map((name) => el('label', {}, el('input', { type: 'checkbox', name: 'fault', value: name }), ` ${name}`)));
      faults.hidden = names.length === 0;
    },
    values() {
      const budget = {};
      for (const [key, input] of inputs) if (input.value.trim() !== '') budget[key] = input.value.trim();
      const chosen = [...faults.querySelectorAll('input[name="fault"]:checked')].map((box) => box.value);
      const model = models.hidden ? '' : modelSelect.value;
      return { ...(model ? { model } : {}), ...(Object.keys(budget).length ? { budget } : {}), ...(chosen.length ? { faults: chosen } : {}) };
    },
  };
}
