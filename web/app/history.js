// The run history: the stored runs, newest first, with status and what they were asked.

const time = (ms) => new Date(ms).toLocaleTimeString();

/** Renders `runs` into `list`; clicking a run calls `onOpen(run)`. */
export function renderHistory(list, runs, currentId, onOpen, filtered = false) {
  if (runs.length === 0) {
    const empty = document.createElement('li');
    empty.className = 'muted';
    empty.textContent = filtered ? 'No stored runs match.' : 'No runs stored yet.';
    list.replaceChildren(empty);
    return;
  }
  list.replaceChildren(
    ...runs.map((run) => {
      const item = document.createElement('li');
      item.className = `run-item${run.runId === currentId ? ' current' : ''}`;
      item.dataset.runId = run.runId;
      item.dataset.status = run.status;
      const button = document.createElement('button');
      button.type = 'button';
      const badge = document.createElement('span');
      badge.className = `badge ${run.status}`;
      badge.textContent = run.status;
      const text = document.createElement('span');
      text.className = 'run-input';
      text.textContent = run.input ?? run.runId;
      const meta = document.createElement('span');
      meta.className = 'muted run-meta';
      meta.textContent = `${run.graph} · ${time(run.createdAt)} · ${run.steps} steps`;
      button.append(badge, text, meta);
      button.addEventListener('click', () => onOpen(run));
      item.append(button);
      return item;
    }),
  );
}
