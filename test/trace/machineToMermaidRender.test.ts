import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { StateGraph, analysisToMermaid, analyzeTransitions, machineGraph, machineToMermaid, type TransitionRecord } from '../../src/index.js';
import { customerService } from '../../machines/customerService.js';
import { graphs as workflowGraphs } from '../fixtures/workflowGraphs.js';
import { launchBrowser, type LaunchedBrowser } from '../support/launchBrowser.js';

// The Mermaid build a page would load: the real parser and renderer, in Chromium (it needs a DOM).
const MERMAID = createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');

let browser: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.goto('about:blank');
  await page.addScriptTag({ path: MERMAID });
  await page.evaluate(() => (globalThis as unknown as { mermaid: { initialize(o: object): void } }).mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' }));
}, 120_000);

afterAll(async () => browser?.close());

/** Parses and renders a diagram with Mermaid in the page: the diagram type, the SVG's text, and its edge paths. */
async function render(text: string): Promise<{ type: string; labels: string[]; edges: number }> {
  return page.evaluate(async (diagram) => {
    type Mermaid = { parse(t: string): Promise<{ diagramType: string }>; render(id: string, t: string): Promise<{ svg: string }> };
    const mermaid = (globalThis as unknown as { mermaid: Mermaid }).mermaid;
    const parsed = await mermaid.parse(diagram);
    const { svg } = await mermaid.render('g', diagram);
    // The test runs under Node's types (no DOM lib): the little of the DOM it reads is typed here.
    type Found = { length: number; [Symbol.iterator](): Iterator<{ textContent: string | null }> };
    type Parser = new () => { parseFromString(text: string, type: string): { querySelectorAll(selector: string): Found } };
    const doc = new (globalThis as unknown as { DOMParser: Parser }).DOMParser().parseFromString(svg, 'image/svg+xml');
    const labels = [...doc.querySelectorAll('text, span, p')].map((e) => (e.textContent ?? '').trim()).filter((t) => t !== '');
    return { type: parsed.diagramType, labels: [...new Set(labels)], edges: doc.querySelectorAll('path.transition').length };
  }, text);
}

/** The edges of a diagram's text between two states (not the start and end pseudo-states `[*]`). */
const stateEdges = (text: string) => text.split('\n').filter((l) => l.includes(' --> ') && !l.includes('[*]'));

describe('machineToMermaid in the Mermaid library', () => {
  it('renders the customer-service flagship with node ids as labels, named routes and the fuse and failures folded', async () => {
    const graph = customerService();
    const text = machineToMermaid(graph);
    const drawn = await render(text);
    expect(drawn.type).toBe('stateDiagram');
    const shape = machineGraph(graph);
    // Every node by the id it was written with, the coordinator's specialists, and the route keys.
    expect(drawn.labels).toEqual(expect.arrayContaining(shape.nodes.map((n) => n.id)));
    expect(drawn.labels).toEqual(expect.arrayContaining(['rag', 'tool', 'report', 'human', 'waiting for a reply', 'handoff', 'budget_spent', 'accept']));
    expect(drawn.labels).toEqual(expect.arrayContaining(['any node once its maxSteps fuse (40) is spent', 'any node whose step throws or whose route fails']));
    expect(drawn.labels.filter((t) => /transition|^n_|fuse \(maxSteps\)|route failed/.test(t))).toEqual([]);
    // One edge per route the graph was written with (33) and finish's end: 34, where every node used
    // to draw a fuse and a failure edge too (76). Mermaid draws each of them, and one line per note.
    const routes = shape.edges.filter((e) => e.kind === 'conditional' || e.kind === 'transition').length;
    expect(routes).toBe(33);
    expect(stateEdges(text)).toHaveLength(routes + 1 + 2);
    expect(stateEdges(text).filter((l) => / --> (maxSteps|failed)\b/.test(l))).toEqual([]);
    expect(drawn.edges).toBe(text.split('\n').filter((l) => l.includes(' --> ')).length + 4);
    expect(drawn.edges).toBeLessThanOrEqual(60);
  }, 60_000);

  it('renders a typed workflow with its gate decisions on the edges and its early ends in one note', async () => {
    const review = workflowGraphs.find((g) => g.name === 'review')!;
    const text = machineToMermaid(review.toMachine());
    const drawn = await render(text);
    expect(drawn.type).toBe('stateDiagram');
    expect(drawn.labels).toEqual(expect.arrayContaining(['draft', 'fork', 'spell', 'facts', 'approval:person', 'publish', 'revise', 'finish', 'PASS', 'FAIL', 'TIMEOUT']));
    expect(drawn.labels).toContain('any step on workflow:end (abort, terminate, spent loop fuse)');
    expect(drawn.labels.filter((t) => /transition|^n_|9007199254740991/.test(t))).toEqual([]);
    expect(stateEdges(text).filter((l) => / --> (maxSteps|failed)\b/.test(l))).toEqual([]);
  }, 60_000);

  it("renders the README's Mermaid example", async () => {
    const blocks = [...readFileSync('README.md', 'utf8').matchAll(/^( *)```mermaid\n([\s\S]*?)^\1```$/gm)].map((m) => m[2]!);
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) expect((await render(block)).labels).toEqual(expect.arrayContaining(['tool_plan', 'ask_order', 'waiting for a reply']));
  }, 60_000);

  it('renders ids and route keys that look like HTML as written, not as markup it drops', async () => {
    const img = '<img src=x onerror=alert(1)>';
    const bold = '<b>bold</b> & a&amp;b';
    const graph = new StateGraph({ name: 'markup' })
      .addNode(img, () => null)
      .addNode(bold, () => null)
      .start(img)
      .addConditionalEdges(img, (): string => '<i>k</i>', { '<i>k</i>': bold });
    const drawn = await render(machineToMermaid(graph));
    expect(drawn.labels).toEqual(expect.arrayContaining([img, bold, '<i>k</i>']));
    // The chain of stored runs drawn by analysisToMermaid, with a script among its states.
    const script = 'x"y<script>alert(1)</script>]-->%%z';
    const hop = (from: string, to: string): TransitionRecord => ({ runId: 'r', workflow: 'w', from, to, at: 1, durationMs: 1, tokens: 0, nodeType: 'node', label: 'x' });
    const chain = await render(analysisToMermaid(analyzeTransitions([hop('__start__', img), hop(img, script), hop(script, bold), hop(bold, '__end__:completed')])));
    expect(chain.labels).toEqual(expect.arrayContaining([img, script, bold, 'end: completed']));
  }, 60_000);

  it('renders a graph whose ids and route keys hold Mermaid syntax, as written', async () => {
    const graph = new StateGraph({ name: 'odd' })
      .addNode('a: "first"; #1 {x}', () => null)
      .addNode('b%%', () => null)
      .start('a: "first"; #1 {x}')
      .addConditionalEdges('a: "first"; #1 {x}', (): string => 'x', { 'x:y;50%': 'b%%' });
    const drawn = await render(machineToMermaid(graph));
    expect(drawn.labels).toEqual(expect.arrayContaining(['a: "first"; #1 {x}', 'b%%', 'x:y;50%']));
  }, 60_000);
});
