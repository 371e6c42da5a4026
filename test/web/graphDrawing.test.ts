import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRunStore, startServer, type RunningServer } from '../../src/index.js';
import { graphs, scenarios } from '../../machines/index.js';
import { graphs as workflowGraphs } from '../fixtures/workflowGraphs.js';
import { launchBrowser, type LaunchedBrowser } from '../support/launchBrowser.js';

/**
 * The workbench's drawing of the customer-service graph and a typed workflow, read as layout: after
 * fit every node box, edge and label is inside the drawing's panel, no two node boxes overlap, the
 * two-way pairs (the tool loop) do not cross, the hops every node has are one legend; zoom, pan and
 * fit work by wheel, buttons and drag; on a phone the page does not overflow and node labels are
 * readable. The coordinator opens and closes and lights while its specialists run.
 */
let server: RunningServer;
let store: SqliteRunStore;
let browser: LaunchedBrowser;

beforeAll(async () => {
  store = new SqliteRunStore({ file: join(mkdtempSync(join(tmpdir(), 'sb-web-draw-')), 'runs.db') });
  server = await startServer({ store, graphs: [...graphs, ...workflowGraphs], scenarios: [...scenarios], scenarioRoot: 'machines', port: 0 });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

async function openPage(viewport: { width: number; height: number }, graph = 'customer-service'): Promise<Page> {
  const page = await browser.context.newPage();
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.setViewportSize(viewport);
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  if (graph !== 'customer-service') await page.selectOption('#graph-select', graph);
  await page.waitForSelector(`#graph .graph-canvas[data-scale] .node[data-node-id]`);
  return page;
}

type Box = { left: number; top: number; right: number; bottom: number };
interface Drawing {
  canvas: Box;
  scale: number;
  transform: string;
  nodes: Array<Box & { id: string; labelPx: number }>;
  edges: Array<Box & { from: string; to: string; label: string | null }>;
  labels: Box[];
  scrollWidth: number;
}

// Read in the page (a string, since the tests are type-checked without the DOM library).
const drawing = (page: Page): Promise<Drawing> =>
  page.evaluate(`(() => {
    const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
    const canvas = document.querySelector('#graph .graph-canvas');
    // A label's size on screen: its font size times the scale the drawing is shown at.
    const px = (text) => parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a;
    return {
      canvas: box(canvas),
      scale: Number(canvas.dataset.scale),
      transform: document.querySelector('#graph .graph-layer').getAttribute('transform'),
      nodes: [...canvas.querySelectorAll('.node')].map((n) => ({ id: n.dataset.nodeId, labelPx: px(n.querySelector('.node-label')), ...box(n.querySelector(':scope > rect')) })),
      edges: [...canvas.querySelectorAll('.edge')].map((e) => ({ from: e.dataset.from, to: e.dataset.to, label: e.querySelector('.edge-label')?.textContent ?? null, ...box(e.querySelector('path')) })),
      labels: [...canvas.querySelectorAll('.edge-label')].map(box),
      scrollWidth: document.documentElement.scrollWidth,
    };
  })()`) as Promise<Drawing>;

/** Whether the two edges' drawn paths cross (sampled along their length, segment against segment). */
const pathsCross = (page: Page, a: [string, string], b: [string, string]): Promise<boolean> =>
  page.evaluate(`(() => {
    const sample = ([from, to]) => {
      const path = document.querySelector('#graph .edge[data-from="' + from + '"][data-to="' + to + '"] path');
      const total = path.getTotalLength();
      return Array.from({ length: 81 }, (_, i) => path.getPointAtLength((total * i) / 80));
    };
    const p = sample(${JSON.stringify(a)});
    const q = sample(${JSON.stringify(b)});
    const side = (a, b, c) => Math.sign((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x));
    for (let i = 0; i < p.length - 1; i++)
      for (let j = 0; j < q.length - 1; j++)
        if (side(p[i], p[i + 1], q[j]) * side(p[i], p[i + 1], q[j + 1]) < 0 && side(q[j], q[j + 1], p[i]) * side(q[j], q[j + 1], p[i + 1]) < 0) return true;
    return false;
  })()`) as Promise<boolean>;

const inside = (b: Box, frame: Box, slack = 0.5) => b.left >= frame.left - slack && b.top >= frame.top - slack && b.right <= frame.right + slack && b.bottom <= frame.bottom + slack;
const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

function expectWholeAndApart(seen: Drawing): void {
  for (const n of seen.nodes) expect(inside(n, seen.canvas), `node ${n.id} inside the panel`).toBe(true);
  for (const e of seen.edges) expect(inside(e, seen.canvas), `edge ${e.from} → ${e.to} inside the panel`).toBe(true);
  for (const l of seen.labels) expect(inside(l, seen.canvas), 'edge label inside the panel').toBe(true);
  for (let i = 0; i < seen.nodes.length; i++) {
    for (let j = i + 1; j < seen.nodes.length; j++) expect(overlap(seen.nodes[i]!, seen.nodes[j]!), `${seen.nodes[i]!.id} and ${seen.nodes[j]!.id} apart`).toBe(false);
  }
}

/** Two `translate(x,y) scale(k)` transforms equal to within rounding. */
function expectSameTransform(actual: string, expected: string): void {
  const numbers = (t: string) => (t.match(/-?[\d.]+/g) ?? []).map(Number);
  const [a, e] = [numbers(actual), numbers(expected)];
  expect(a).toHaveLength(3);
  a.forEach((v, i) => expect(v).toBeCloseTo(e[i]!, 1));
}

const shot = async (page: Page, name: string, selector?: string) => {
  mkdirSync('test-output', { recursive: true });
  await (selector ? page.locator(selector).screenshot({ path: `test-output/${name}.png` }) : page.screenshot({ path: `test-output/${name}.png` }));
};

describe('the workbench drawing at 1440×900', () => {
  it('fits the whole customer-service graph on load: every node, edge and label inside the panel, no node boxes overlapping', async () => {
    const page = await openPage({ width: 1440, height: 900 });
    try {
      const seen = await drawing(page);
      expect(seen.nodes.map((n) => n.id).sort()).toEqual(
        ['__end__', 'ask_order', 'classify', 'draft', 'finish', 'human_handoff', 'ingest', 'multi_plan', 'multi_review', 'order_reply', 'report_mcp', 'requery', 'retrieve', 'review', 'specialist', 'tool_execute', 'tool_plan', 'vision'].sort(),
      );
      expectWholeAndApart(seen);
      await shot(page, 'graph-1440');
    } finally {
      await page.close();
    }
  }, 60_000);

  it('labels routes on their edges and folds the hops every node has into one legend', async () => {
    const page = await openPage({ width: 1440, height: 900 });
    try {
      const { edges } = await drawing(page);
      const label = (from: string, to: string) => edges.find((e) => e.from === from && e.to === to)?.label;
      expect(label('classify', 'retrieve')).toBe('rag');
      expect(label('classify', 'multi_plan')).toBe('multi');
      expect(label('tool_plan', 'tool_execute')).toBe('call');
      expect(label('review', 'draft')).toBe('revise');
      // Only the finish ends the run by an edge; the end when no route matches is a legend entry.
      expect(edges.filter((e) => e.to === '__end__').map((e) => e.from)).toEqual(['finish']);
      expect(edges.filter((e) => ['failed', 'maxSteps'].includes(e.to))).toEqual([]);
      // 33 route hops between nodes and the finish's end: 34 (the Mermaid export draws the same 34).
      expect(edges).toHaveLength(34);
      const legend = await page.$$eval('#graph .legend', (els) => els.map((e) => [e.getAttribute('data-legend'), e.getAttribute('data-steps')]));
      expect(legend.map(([id]) => id)).toEqual(['no-route', 'failure']);
      expect(legend[0]![1]!.split(' ').sort()).toEqual(['classify', 'ingest', 'multi_review', 'order_reply', 'report_mcp', 'review', 'tool_plan', 'vision']);
      expect(legend[1]![1]!.split(' ')).toContain('specialist');
    } finally {
      await page.close();
    }
  }, 60_000);

  it('draws the two-way pairs (the tool loop, review and draft, the order question) as lines that do not cross', async () => {
    const page = await openPage({ width: 1440, height: 900 });
    try {
      for (const [a, b] of [['tool_plan', 'tool_execute'], ['draft', 'review'], ['ask_order', 'order_reply']] as const) {
        expect(await pathsCross(page, [a, b], [b, a]), `${a} ⇄ ${b}`).toBe(false);
      }
    } finally {
      await page.close();
    }
  }, 60_000);

  it('zooms by wheel and buttons, pans by drag, and fits again by the button and on resize', async () => {
    const page = await openPage({ width: 1440, height: 900 });
    try {
      const fitted = await drawing(page);
      await page.click('#zoom-in');
      const zoomed = await drawing(page);
      expect(zoomed.scale).toBeCloseTo(fitted.scale * 1.25, 3);
      await page.click('#zoom-out');
      expect((await drawing(page)).scale).toBeCloseTo(fitted.scale, 3);

      // The wheel zooms about the pointer: the node under it stays under it.
      const under = fitted.nodes.find((n) => n.id === 'classify')!;
      const at = { x: (under.left + under.right) / 2, y: (under.top + under.bottom) / 2 };
      await page.mouse.move(at.x, at.y);
      await page.mouse.wheel(0, -300);
      await page.waitForFunction(`Number(document.querySelector('#graph .graph-canvas').dataset.scale) > ${fitted.scale * 1.2}`);
      const wheeled = (await drawing(page)).nodes.find((n) => n.id === 'classify')!;
      expect(Math.abs((wheeled.left + wheeled.right) / 2 - at.x)).toBeLessThan(2);
      expect(Math.abs((wheeled.top + wheeled.bottom) / 2 - at.y)).toBeLessThan(2);
      expect(await page.evaluate('window.scrollY')).toBe(0);

      // A drag on the background moves the whole drawing by the drag.
      const before = (await drawing(page)).nodes.find((n) => n.id === 'ingest')!;
      const start = { x: fitted.canvas.left + 30, y: fitted.canvas.bottom - 30 };
      await page.mouse.move(start.x, start.y);
      await page.mouse.down();
      await page.mouse.move(start.x + 60, start.y - 40, { steps: 5 });
      await page.mouse.up();
      const after = (await drawing(page)).nodes.find((n) => n.id === 'ingest')!;
      expect(after.left - before.left).toBeCloseTo(60, 0);
      expect(after.top - before.top).toBeCloseTo(-40, 0);
      // A drag that ends on a node does not select it.
      expect(await page.textContent('#inspector-node')).toBe('');

      await page.click('#zoom-fit');
      expectSameTransform((await drawing(page)).transform, fitted.transform);

      await page.setViewportSize({ width: 1100, height: 760 });
      await page.waitForFunction(`document.querySelector('#graph .graph-layer').getAttribute('transform') !== ${JSON.stringify(fitted.transform)}`);
      expectWholeAndApart(await drawing(page));
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe('the workbench drawing on a phone (390×844)', () => {
  it('does not overflow the page; node labels are at least 11 px; the controls are in reach and work', async () => {
    const page = await openPage({ width: 390, height: 844 });
    try {
      const seen = await drawing(page);
      expect(seen.scrollWidth).toBeLessThanOrEqual(390);
      for (const n of seen.nodes) expect(n.labelPx, `${n.id} label size`).toBeGreaterThanOrEqual(11);
      expect(seen.canvas.left).toBeGreaterThanOrEqual(0);
      expect(seen.canvas.right).toBeLessThanOrEqual(390);
      // The start node is in view.
      expect(inside(seen.nodes.find((n) => n.id === 'ingest')!, seen.canvas)).toBe(true);
      for (const id of ['#zoom-in', '#zoom-out', '#zoom-fit']) {
        const b = (await page.locator(id).boundingBox())!;
        expect(b.width, id).toBeGreaterThanOrEqual(32);
        expect(b.height, id).toBeGreaterThanOrEqual(32);
        expect(b.x + b.width).toBeLessThanOrEqual(390);
      }
      await shot(page, 'graph-390');
      await page.click('#zoom-out');
      expect((await drawing(page)).scale).toBeLessThan(seen.scale);
      await page.click('#zoom-fit');
      expectSameTransform((await drawing(page)).transform, seen.transform);
      // A drag moves the drawing to what was off to the side.
      const start = { x: seen.canvas.left + 200, y: seen.canvas.top + 150 };
      await page.mouse.move(start.x, start.y);
      await page.mouse.down();
      await page.mouse.move(start.x - 150, start.y, { steps: 5 });
      await page.mouse.up();
      expect((await drawing(page)).transform).not.toBe(seen.transform);
      expect((await drawing(page)).scrollWidth).toBeLessThanOrEqual(390);
    } finally {
      await page.close();
    }
  }, 60_000);
  it('zooms by a two-finger pinch about the fingers’ middle, and by keys with the drawing focused', async () => {
    const page = await openPage({ width: 390, height: 844 });
    try {
      const seen = await drawing(page);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 2 });
      const mid = { x: (seen.canvas.left + seen.canvas.right) / 2, y: seen.canvas.top + 200 };
      const fingers = (gap: number) => [
        { x: mid.x - gap, y: mid.y, id: 1 },
        { x: mid.x + gap, y: mid.y, id: 2 },
      ];
      // The drawing point under the middle before the pinch, read from the transform.
      const under = (d: Drawing) => {
        const [x, y, k] = (d.transform.match(/-?[\d.]+/g) ?? []).map(Number) as [number, number, number];
        return { x: (mid.x - seen.canvas.left - x) / k, y: (mid.y - seen.canvas.top - y) / k };
      };
      const before = under(seen);
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(40) });
      for (const gap of [50, 60, 70, 80]) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(gap) });
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      const pinched = await drawing(page);
      expect(pinched.scale).toBeCloseTo(seen.scale * 2, 1);
      const after = under(pinched);
      expect(Math.abs(after.x - before.x)).toBeLessThan(2);
      expect(Math.abs(after.y - before.y)).toBeLessThan(2);
      expect(await page.textContent('#inspector-node')).toBe('');
      expect(pinched.scrollWidth).toBeLessThanOrEqual(390);

      await page.focus('#graph .graph-canvas');
      await page.keyboard.press('0');
      expectSameTransform((await drawing(page)).transform, seen.transform);
      await page.keyboard.press('+');
      expect((await drawing(page)).scale).toBeCloseTo(seen.scale * 1.25, 3);
      await page.keyboard.press('0');
      await page.keyboard.press('ArrowRight');
      const [x0] = (seen.transform.match(/-?[\d.]+/g) ?? []).map(Number);
      const [x1] = ((await drawing(page)).transform.match(/-?[\d.]+/g) ?? []).map(Number);
      expect(x1! - x0!).toBeCloseTo(-60, 0);
      expect(await page.evaluate('window.scrollY')).toBe(0);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('follows the lit node through a run without leaving the panel half empty', async () => {
    const page = await openPage({ width: 390, height: 844 });
    try {
      await page.click('[data-scenario="1-policy"]');
      await page.waitForSelector('body[data-run-status="completed"]', { timeout: 60_000 });
      await page.waitForSelector('#graph [data-node-id="__end__"].lit');
      const seen = await drawing(page);
      expect(inside(seen.nodes.find((n) => n.id === '__end__')!, seen.canvas)).toBe(true);
      // The drawing is taller and wider than the panel: brought to its end, it still reaches the panel's bottom and sides.
      const layer = (await page.locator('#graph .graph-layer').boundingBox())!;
      expect(layer.y + layer.height).toBeGreaterThanOrEqual(seen.canvas.bottom - 12);
      expect(layer.x).toBeLessThanOrEqual(seen.canvas.left + 12);
      expect(layer.x + layer.width).toBeGreaterThanOrEqual(seen.canvas.right - 12);
      expect(seen.scrollWidth).toBeLessThanOrEqual(390);
    } finally {
      await page.close();
    }
  }, 90_000);
});

describe('the coordinator and a typed workflow', () => {
  it('draws the coordinator closed, opens and closes it by a click, and keeps its exit to multi_review', async () => {
    const page = await openPage({ width: 1440, height: 900 });
    try {
      const coordinator = '#graph [data-node-id="specialist"]';
      expect(await page.locator(`${coordinator} .part`).count()).toBe(0);
      expect(await page.textContent(`${coordinator} .coordinator-summary`)).toBe('4 specialists');
      expect(await page.locator('#graph .edge[data-from="specialist"][data-to="multi_review"]').count()).toBe(1);
      await page.click(`${coordinator} .expander`);
      await page.waitForSelector(`${coordinator}.expanded .part`);
      expect((await page.$$eval(`${coordinator} .part`, (els) => els.map((e) => e.getAttribute('data-part')))).sort()).toEqual(['human', 'rag', 'report', 'tool']);
      expect(await page.getAttribute(`${coordinator} .expander`, 'aria-expanded')).toBe('true');
      const outer = (await page.locator(`${coordinator} > rect`).boundingBox())!;
      for (const part of await page.locator(`${coordinator} .part rect`).all()) {
        const box = (await part.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(outer.x);
        expect(box.y).toBeGreaterThanOrEqual(outer.y);
        expect(box.x + box.width).toBeLessThanOrEqual(outer.x + outer.width + 0.5);
        expect(box.y + box.height).toBeLessThanOrEqual(outer.y + outer.height + 0.5);
      }
      // Opened, the boxes still do not overlap one another.
      const open = await drawing(page);
      for (let i = 0; i < open.nodes.length; i++) {
        for (let j = i + 1; j < open.nodes.length; j++) expect(overlap(open.nodes[i]!, open.nodes[j]!), `${open.nodes[i]!.id} / ${open.nodes[j]!.id}`).toBe(false);
      }
      expect(await page.locator('#graph .edge[data-from="specialist"][data-to="multi_review"]').count()).toBe(1);
      expect(await page.textContent('#inspector-node')).toBe('');
      await page.click(`${coordinator} .expander`);
      await page.waitForSelector(`${coordinator}:not(.expanded)`);
      expect(await page.locator(`${coordinator} .part`).count()).toBe(0);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('lights the closed coordinator while its specialists run, and says how many', async () => {
    const page = await openPage({ width: 1440, height: 900 });
    try {
      await page.click('[data-scenario="5-multi"]');
      await page.waitForSelector('body[data-run-status="completed"]', { timeout: 60_000 });
      const coordinator = '#graph [data-node-id="specialist"]';
      await page.waitForSelector(`${coordinator}.visited`);
      expect(await page.textContent(`${coordinator} .coordinator-summary`)).toBe('3 of 4 ran');
      expect(await page.getAttribute(coordinator, 'class')).not.toContain('active');
      // Back on the timeline to the moment the first specialist started: the coordinator is lit.
      await page.locator('#events .event', { hasText: /node\.started .*· root\/rag\[/ }).first().click();
      await page.waitForSelector(`${coordinator}.active`);
      expect(await page.getAttribute(coordinator, 'data-running')).not.toBe('');
      expect(await page.textContent(`${coordinator} .coordinator-summary`)).toMatch(/^\d of 4 running$/);
      await shot(page, 'graph-coordinator-running', '.graph-panel');
    } finally {
      await page.close();
    }
  }, 90_000);

  it('draws a typed workflow’s HumanGate without a fallback edge to END, its person’s answers on their edges', async () => {
    const page = await openPage({ width: 1440, height: 900 }, 'review');
    try {
      await page.waitForSelector('#graph [data-node-id="approval:person"]');
      const seen = await drawing(page);
      expect(seen.edges.filter((e) => e.to === '__end__').map((e) => e.from)).toEqual(['finish']);
      const label = (from: string, to: string) => seen.edges.find((e) => e.from === from && e.to === to)?.label;
      expect(label('approval', 'approval:person')).toBe('WAIT');
      expect(label('approval:person', 'publish')).toBe('PASS');
      expect(label('approval:person', 'revise')).toBe('FAIL');
      expect(label('approval:person', 'finish')).toBe('TIMEOUT');
      expectWholeAndApart(seen);
      await shot(page, 'graph-workflow-1440');
    } finally {
      await page.close();
    }
  }, 60_000);
});
