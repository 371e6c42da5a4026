// Zoom, pan and fit for the graph drawing: the drawing is one <g> inside an <svg> that fills the
// panel; the wheel zooms about the pointer, a drag pans, and fit shows the whole drawing.

/** The smallest and largest scale a reader can zoom to. */
const MIN_SCALE = 0.1;
const MAX_SCALE = 4;
/** Fit never blows a small graph up past this. */
const MAX_FIT = 1.25;
/** Room left around the drawing by fit (px). */
const FIT_MARGIN = 10;
/**
 * Below this panel width (a phone) fit keeps node labels readable (12 px text at ≥ 11.5 px) rather
 * than shrink the whole drawing into view: the panel is panned instead.
 */
export const NARROW_PANEL = 640;
export const READABLE_SCALE = 0.96;
/** A press that moves less than this is a click, not a drag. */
const DRAG_SLOP = 4;

/**
 * Drives `layer` (a <g> in `svg`): returns the controls. `onChange()` is called after every change
 * of the transform.
 */
export function createViewport(svg, layer, onChange = () => {}) {
  const t = { k: 1, x: 0, y: 0 };
  let touched = false;

  const apply = () => {
    layer.setAttribute('transform', `translate(${t.x.toFixed(2)},${t.y.toFixed(2)}) scale(${t.k.toFixed(4)})`);
    svg.dataset.scale = t.k.toFixed(4);
    onChange();
  };
  const size = () => ({ width: svg.clientWidth, height: svg.clientHeight });

  /** Scales by `factor` about the panel point (cx, cy) (the middle when not given). */
  function zoomBy(factor, cx, cy) {
    const { width, height } = size();
    const px = cx ?? width / 2;
    const py = cy ?? height / 2;
    const k = Math.min(MAX_SCALE, Math.max(MIN_SCALE, t.k * factor));
    t.x = px - ((px - t.x) * k) / t.k;
    t.y = py - ((py - t.y) * k) / t.k;
    t.k = k;
    touched = true;
    apply();
  }

  /**
   * The scale and offset that show the whole drawing (`box`: its bounds in drawing units), or, on a
   * narrow panel where that would make labels unreadable, the top of it at a readable scale around
   * the drawing x `focusX` (the start node) when the drawing is wider than the panel.
   */
  function fitTransform(box, width, height, focusX = null) {
    const fitting = Math.min((width - 2 * FIT_MARGIN) / box.width, (height - 2 * FIT_MARGIN) / box.height, MAX_FIT);
    const k = width < NARROW_PANEL ? Math.max(fitting, READABLE_SCALE) : fitting;
    const wide = box.width * k > width - 2 * FIT_MARGIN;
    const x = wide && focusX !== null ? Math.min(FIT_MARGIN - box.x * k, Math.max(width - FIT_MARGIN - (box.x + box.width) * k, width / 2 - focusX * k)) : (width - box.width * k) / 2 - box.x * k;
    const y = box.height * k <= height - 2 * FIT_MARGIN ? (height - box.height * k) / 2 - box.y * k : FIT_MARGIN - box.y * k;
    return { k, x, y, fitting };
  }

  /** Shows the whole drawing (see `fitTransform`); `focusX` is where a drawing too wide for the panel is centred. */
  function fit(focusX = null) {
    const { width, height } = size();
    if (width === 0 || height === 0) return;
    Object.assign(t, fitTransform(layer.getBBox(), width, height, focusX));
    delete t.fitting;
    touched = false;
    apply();
  }

  /** Moves the drawing so the drawing point (x, y) sits at the panel point (px, py), the scale unchanged. */
  function place(x, y, px, py) {
    t.x = px - x * t.k;
    t.y = py - y * t.k;
    apply();
  }

  /** Pans, if needed, so the drawing box `b` ({x, y, width, height}) is inside the panel; true when it moved. */
  function reveal(b) {
    const { width, height } = size();
    const left = b.x * t.k + t.x;
    const top = b.y * t.k + t.y;
    const inside = left >= 0 && top >= 0 && left + b.width * t.k <= width && top + b.height * t.k <= height;
    if (inside) return false;
    t.x = width / 2 - (b.x + b.width / 2) * t.k;
    t.y = height / 2 - (b.y + b.height / 2) * t.k;
    // Centred, but no further than needed: a drawing larger than the panel keeps its edges at the panel's.
    const all = layer.getBBox();
    const clamp = (at, lo, hi) => (lo > hi ? at : Math.min(hi, Math.max(lo, at)));
    t.x = clamp(t.x, width - FIT_MARGIN - (all.x + all.width) * t.k, FIT_MARGIN - all.x * t.k);
    t.y = clamp(t.y, height - FIT_MARGIN - (all.y + all.height) * t.k, FIT_MARGIN - all.y * t.k);
    apply();
    return true;
  }

  // The wheel zooms about the pointer (and never scrolls the page under it).
  svg.addEventListener(
    'wheel',
    (ev) => {
      ev.preventDefault();
      const r = svg.getBoundingClientRect();
      const delta = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaY;
      zoomBy(Math.exp(-delta * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
    },
    { passive: false },
  );

  // A drag pans; a press that barely moves stays a click on whatever is under it.
  let drag = null;
  let dragged = false;
  // Two fingers pinch: the drawing point under their middle stays under it while the scale follows their spread.
  const pointers = new Map();
  let pinch = null;
  const spread = () => {
    const [a, b] = [...pointers.values()];
    const r = svg.getBoundingClientRect();
    return { dist: Math.hypot(a.x - b.x, a.y - b.y) || 1, mx: (a.x + b.x) / 2 - r.left, my: (a.y + b.y) / 2 - r.top };
  };
  svg.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
    if (pointers.size === 2) {
      const s0 = spread();
      pinch = { ...s0, k: t.k, px: (s0.mx - t.x) / t.k, py: (s0.my - t.y) / t.k };
      for (const id of pointers.keys()) if (!svg.hasPointerCapture(id)) svg.setPointerCapture(id);
      drag = null;
      dragged = true;
      return;
    }
    drag = { id: ev.pointerId, sx: ev.clientX, sy: ev.clientY, x: t.x, y: t.y, moving: false };
    dragged = false;
  });
  svg.addEventListener('pointermove', (ev) => {
    if (pointers.has(ev.pointerId)) pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
    if (pinch && pointers.size === 2) {
      const now = spread();
      t.k = Math.min(MAX_SCALE, Math.max(MIN_SCALE, (pinch.k * now.dist) / pinch.dist));
      t.x = now.mx - pinch.px * t.k;
      t.y = now.my - pinch.py * t.k;
      touched = true;
      apply();
      return;
    }
    if (!drag || ev.pointerId !== drag.id) return;
    const dx = ev.clientX - drag.sx;
    const dy = ev.clientY - drag.sy;
    if (!drag.moving && Math.hypot(dx, dy) < DRAG_SLOP) return;
    if (!drag.moving) {
      drag.moving = true;
      svg.setPointerCapture(ev.pointerId);
      svg.classList.add('panning');
    }
    t.x = drag.x + dx;
    t.y = drag.y + dy;
    touched = true;
    apply();
  });
  const end = (ev) => {
    pointers.delete(ev.pointerId);
    if (pointers.size < 2) pinch = null;
    if (!drag || ev.pointerId !== drag.id) return;
    dragged = drag.moving;
    drag = null;
    svg.classList.remove('panning');
  };
  svg.addEventListener('pointerup', end);
  svg.addEventListener('pointercancel', end);
  // The click that ends a drag selects nothing.
  svg.addEventListener(
    'click',
    (ev) => {
      if (dragged) {
        ev.stopPropagation();
        ev.preventDefault();
        dragged = false;
      }
    },
    true,
  );

  return {
    zoomBy,
    fit,
    fitTransform,
    place,
    reveal,
    /** Pans by (dx, dy) panel px. */
    panBy: (dx, dy) => {
      t.x += dx;
      t.y += dy;
      touched = true;
      apply();
    },
    /** The current transform: scale `k`, offset `x`, `y` (panel px). */
    transform: () => ({ ...t }),
    /** True once the reader zoomed or panned since the last fit. */
    touched: () => touched,
  };
}
