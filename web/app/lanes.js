// Specialist lanes: the run's events grouped by trace path (`root`, `root/<kind>[n]`…), one row each.

/** Renders `view.lanes` into `container`; clicking an item calls `onPick(seq, nodeId)`. */
export function renderLanes(container, view, onPick) {
  const lanes = [...view.lanes.entries()].sort(([a], [b]) => (a === 'root' ? -1 : b === 'root' ? 1 : a.localeCompare(b)));
  if (lanes.length === 0) {
    container.replaceChildren(Object.assign(document.createElement('p'), { className: 'muted', textContent: 'No events yet.' }));
    return;
  }
  container.replaceChildren(
    ...lanes.map(([path, items]) => {
      const lane = document.createElement('div');
      lane.className = 'lane';
      lane.dataset.path = path;
      const name = document.createElement('div');
      name.className = 'lane-name';
      name.textContent = path;
      const row = document.createElement('div');
      row.className = 'lane-items';
      for (const item of items) {
        if (item.type === 'node.started' && items.some((o) => o.type === 'node.completed' && o.nodeId === item.nodeId && o.seq > item.seq)) continue;
        const chip = document.createElement('button');
        chip.type = 'button';
        chip.className = `chip ${item.type.replace(/\./g, '-')}`;
        chip.textContent = item.label;
        chip.title = `#${item.seq} ${item.type}`;
        chip.addEventListener('click', () => onPick(item.seq, item.nodeId));
        row.append(chip);
      }
      lane.append(name, row);
      return lane;
    }),
  );
}
