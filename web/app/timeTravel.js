// Time travel on a run: a step list and slider showing the full state after each step, and
// "fork from here" with a JSON editor for the state the fork goes on with.
import * as api from './api.js';

/**
 * Wires the time-travel panel. `elements`: { list, slider, title, state, forkButton, forkForm,
 * forkState, forkError }. `onFork(runId)` opens the fork once it is stored.
 */
export function createTimeTravel(elements, { onFork }) {
  const { list, slider, title, state: stateBox, forkButton, forkForm, forkState, forkError } = elements;
  let runId = null;
  let path = [];
  let shown = null;
  let asked = 0;

  function showError(error) {
    forkError.hidden = !error;
    forkError.textContent = error ? String(error.message ?? error) : '';
  }

  /** Shows the state after `step` (0 = before the first node). */
  async function showStep(step) {
    const ticket = ++asked;
    const at = await api.stateAt(runId, step);
    if (ticket !== asked) return;
    shown = at;
    slider.value = String(step);
    for (const item of list.children) item.classList.toggle('current', Number(item.dataset.step) === step);
    const where = at.nodeId === null ? 'before the first node' : `after ${at.nodeId}`;
    title.textContent = `step ${at.step} of ${at.lastStep}: ${where}${at.nextNodeId ? ` → next ${at.nextNodeId}` : ''}`;
    stateBox.textContent = JSON.stringify(at.state, null, 2);
    document.body.dataset.travelStep = String(step);
    forkButton.disabled = false;
  }

  function renderList(lastStep) {
    const items = [];
    for (let step = 0; step <= lastStep; step++) {
      const item = document.createElement('li');
      item.dataset.step = String(step);
      const button = Object.assign(document.createElement('button'), { type: 'button', className: 'step-item', textContent: step === 0 ? '0 · start' : `${step} · ${path[step - 1] ?? '?'}` });
      button.addEventListener('click', () => void showStep(step).catch(showError));
      item.append(button);
      items.push(item);
    }
    list.replaceChildren(...items);
    slider.max = String(lastStep);
  }

  slider.addEventListener('input', () => void showStep(Number(slider.value)).catch(showError));

  forkButton.addEventListener('click', () => {
    if (shown === null) return;
    forkState.value = JSON.stringify(shown.state, null, 2);
    forkForm.hidden = false;
    showError(null);
  });

  forkForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError(null);
    let state;
    try {
      state = JSON.parse(forkState.value);
    } catch (error) {
      showError(new Error(`the state is not JSON: ${error.message}`));
      return;
    }
    try {
      const unchanged = JSON.stringify(state) === JSON.stringify(shown.state);
      const { runId: forkId } = await api.forkRun(runId, shown.step, unchanged ? undefined : state);
      forkForm.hidden = true;
      await onFork(forkId);
    } catch (error) {
      showError(error);
    }
  });

  return {
    /** Loads the steps of a run (again, when it has gone on) and shows its last step. */
    async show(id) {
      const changed = id !== runId;
      runId = id;
      if (changed) {
        forkForm.hidden = true;
        showError(null);
      }
      const [detail, last] = await Promise.all([api.getRun(id), api.stateAt(id)]);
      if (runId !== id) return;
      path = detail.path;
      renderList(last.lastStep);
      await showStep(changed || shown === null ? last.lastStep : Math.min(shown.step, last.lastStep));
      return detail;
    },
  };
}
