import { z } from 'zod';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import type { ModelClient } from '../model/ModelClient.js';
import type { AgentContext } from './AgentContext.js';
import type { Gate } from './Gate.js';
import type { Step } from './Step.js';
import { READS_OUTPUT_OF } from './Steps.js';
import type { ErrorHandler, FlowPredicate, WorkflowBlock } from './WorkflowBlock.js';
import type { Recovery } from './runBranch.js';
import { CAN_WAIT } from './runSubWorkflow.js';
import type { WorkflowEdgeCondition, WorkflowGraph, WorkflowGraphEdge, WorkflowGraphNode } from './WorkflowGraph.js';

/** How a node of the graph executes (kept beside the plain-data graph; keyed by node id). */
export type NodeRuntime =
  | { type: 'step'; step: Step; record: boolean; handlers: ErrorHandler[]; waits?: string }
  | { type: 'sub-wait'; step: string; workflow: string }
  | { type: 'gateway'; predicate: FlowPredicate }
  | { type: 'loop-entry'; loop: string; mode: 'while' | 'do' }
  /** `times`: a `times(n)` loop, ending after its own n passes, which the loop fuse does not count. */
  | { type: 'loop-check'; loop: string; mode: 'while' | 'do'; predicate: FlowPredicate; times?: number }
  | { type: 'loop-exit' }
  | { type: 'fork'; mode: 'gather' | 'parallel'; branches: string[]; join: string; recoveries: Readonly<Record<string, Recovery[]>>; canWait: boolean }
  | { type: 'fan-out'; itemsOf: (ctx: AgentContext, input: unknown) => unknown[] | Promise<unknown[]>; stepFor: (item: unknown, index: number) => Step; join: string; template: string; recoveries: Recovery[]; waits: string }
  /** Where a fan-out waits while an item's sub-workflow waits for a person: an engine node only, not in the graph (whether an item waits is known only when it runs). */
  | { type: 'fan-wait'; fanOut: string }
  | { type: 'join' }
  | { type: 'decision'; model: ModelClient; prompt?: string; options: string[] }
  | { type: 'gate'; gate: Gate; maxRetries: number; reflector: Step | null; handles: Record<'PASS' | 'FAIL' | 'ESCALATE' | 'TIMEOUT', boolean>; person: string | null }
  | { type: 'person'; gate: string; timeoutMs: number | null };

/** A workflow compiled: its plain-data graph and how each node runs. */
export interface CompiledWorkflow {
  graph: WorkflowGraph;
  /** How each graph node runs, and each fan-out's wait (`fan-wait`, an engine node the graph does not show). */
  runtime: ReadonlyMap<string, NodeRuntime>;
  /** Workflows used as steps (by node id), for nesting. */
  subWorkflows: ReadonlyMap<string, unknown>;
}

/** A loose end of a compiled block: an edge whose target is whatever comes next. */
interface Exit {
  from: string;
  condition: WorkflowEdgeCondition;
  label?: string;
}

interface Piece {
  entry: string;
  exits: Exit[];
}

/** Compiles the blocks a builder recorded into a plain-data graph plus each node's runtime. */
export function compileWorkflow(name: string, blocks: WorkflowBlock[], handlers: ErrorHandler[], budgetStep: Step | null = null): CompiledWorkflow {
  const nodes: WorkflowGraphNode[] = [];
  const edges: WorkflowGraphEdge[] = [];
  const runtime = new Map<string, NodeRuntime>();
  const subWorkflows = new Map<string, unknown>();
  const taken = new Map<string, number>();
  const recorded = new Set<string>();

  const id = (wanted: string): string => {
    const n = (taken.get(wanted) ?? 0) + 1;
    taken.set(wanted, n);
    return n === 1 ? wanted : `${wanted}#${n}`;
  };
  const edge = (from: string, to: string, condition: WorkflowEdgeCondition, label?: string) => {
    edges.push(label === undefined ? { from, to, condition } : { from, to, condition, label });
  };
  const connect = (exits: Exit[], to: string) => {
    for (const e of exits) edge(e.from, to, e.condition, e.label);
  };
  const add = (node: WorkflowGraphNode, rt: NodeRuntime): string => {
    nodes.push(node);
    runtime.set(node.id, rt);
    return node.id;
  };
  const stepNode = (step: Step, withHandlers: boolean): string => {
    const reads = (step as { [READS_OUTPUT_OF]?: string })[READS_OUTPUT_OF];
    if (reads !== undefined) recorded.add(reads);
    const node: WorkflowGraphNode = {
      id: id(step.name),
      type: 'step',
      label: step.name,
      kind: step.kind ?? 'deterministic',
      typed: { input: step.input !== undefined, output: step.output !== undefined },
    };
    const schemas = schemasOf(step);
    if (schemas !== null) node.schemas = schemas;
    if (isWorkflowStep(step)) {
      node.subWorkflow = step.name;
      subWorkflows.set(node.id, step);
    }
    return add(node, { type: 'step', step, record: false, handlers: withHandlers ? handlers : [] });
  };
  /** A step with its error edges: each handler's recovery node continues where the step would. */
  const stepPiece = (step: Step): Piece => {
    const at = stepNode(step, true);
    const exits: Exit[] = [{ from: at, condition: 'unconditional' }];
    if (canWait(step)) {
      // A sub-workflow that can wait for a person makes its parent wait here, then runs on with the reply.
      const waits = add({ id: id(`${at}:waits`), type: 'gate', label: `${step.name}: a person decides` }, { type: 'sub-wait', step: at, workflow: step.name });
      runtime.set(at, { ...(runtime.get(at) as Extract<NodeRuntime, { type: 'step' }>), waits });
      edge(at, waits, 'gate', 'WAIT');
      edge(waits, at, 'back-edge');
    }
    handlers.forEach((handler, i) => {
      const recovery = stepNode(handler.recovery, false);
      edge(at, recovery, 'error', String(i));
      exits.push({ from: recovery, condition: 'unconditional' });
    });
    return { entry: at, exits };
  };
  /** The `onError` recoveries of a fork's branch: an error edge from the branch to each, and on to the join. */
  const recoveriesOf = (branch: string, join: string): Recovery[] =>
    handlers.map((handler, i) => {
      const nodeId = stepNode(handler.recovery, false);
      edge(branch, nodeId, 'error', String(i));
      edge(nodeId, join, 'unconditional');
      return { nodeId, match: handler.match, step: handler.recovery };
    });
  const chain = (list: WorkflowBlock[]): Piece => {
    let first: string | null = null;
    let exits: Exit[] = [];
    for (const block of list) {
      const piece = compileBlock(block);
      if (first === null) first = piece.entry;
      else connect(exits, piece.entry);
      exits = piece.exits;
    }
    if (first === null) throw new GraphDefinitionError(`workflow "${name}": an empty branch or loop body; give it a step`);
    return { entry: first, exits };
  };

  const compileBlock = (block: WorkflowBlock): Piece => {
    switch (block.type) {
      case 'step':
        return stepPiece(block.step);
      case 'branch': {
        const at = add({ id: id('branch'), type: 'gateway', label: 'branch' }, { type: 'gateway', predicate: block.predicate });
        const yes = chain(block.then);
        const no = chain(block.otherwise);
        edge(at, yes.entry, 'boolean', 'true');
        edge(at, no.entry, 'boolean', 'false');
        return { entry: at, exits: [...yes.exits, ...no.exits] };
      }
      case 'gather':
      case 'parallel': {
        const fork = id('fork');
        const join = id('join');
        const branches = block.steps.map((s) => stepNode(s, false));
        const recoveries: Record<string, Recovery[]> = {};
        // A branch that is a sub-workflow asking a person makes the fork (and so the run) wait.
        add({ id: fork, type: 'fork', label: block.type }, { type: 'fork', mode: block.type, branches, join, recoveries, canWait: block.steps.some(canWait) });
        add({ id: join, type: 'join', label: block.type }, { type: 'join' });
        for (const b of branches) {
          edge(fork, b, 'branch');
          edge(b, join, 'unconditional');
          recoveries[b] = recoveriesOf(b, join);
        }
        return { entry: fork, exits: [{ from: join, condition: 'unconditional' }] };
      }
      case 'fan-out': {
        const fork = id('fork');
        const join = id('join');
        const template = id('for-each');
        const waits = id(`${fork}:waits`);
        const recoveries: Recovery[] = [];
        add({ id: fork, type: 'fork', label: 'for-each' }, { type: 'fan-out', itemsOf: block.itemsOf, stepFor: block.stepFor, join, template, recoveries, waits });
        runtime.set(waits, { type: 'fan-wait', fanOut: fork });
        nodes.push({ id: template, type: 'step', label: 'for-each', kind: 'deterministic', typed: { input: false, output: false } });
        add({ id: join, type: 'join', label: 'for-each' }, { type: 'join' });
        edge(fork, template, 'branch');
        edge(template, join, 'unconditional');
        recoveries.push(...recoveriesOf(template, join));
        return { entry: fork, exits: [{ from: join, condition: 'unconditional' }] };
      }
      case 'loop': {
        const loop = id('loop');
        const check = id('loop-check');
        const exit = id('loop-exit');
        const label = block.times !== undefined ? `times(${block.times})` : block.mode === 'while' ? 'repeatUntil' : 'repeatUntilOutput';
        add({ id: loop, type: 'loop-entry', label }, { type: 'loop-entry', loop, mode: block.mode });
        add({ id: check, type: 'loop-check', label: loop }, { type: 'loop-check', loop, mode: block.mode, predicate: block.predicate, ...(block.times === undefined ? {} : { times: block.times }) });
        add({ id: exit, type: 'loop-exit', label: loop }, { type: 'loop-exit' });
        const body = chain(block.body);
        if (block.mode === 'while') {
          edge(loop, check, 'unconditional');
          edge(check, body.entry, 'loop-continue');
          connect(body.exits.map((e) => ({ ...e, condition: e.condition === 'unconditional' ? 'back-edge' : e.condition })), check);
        } else {
          edge(loop, body.entry, 'unconditional');
          connect(body.exits, check);
          edge(check, body.entry, 'back-edge');
        }
        edge(check, exit, 'loop-exit');
        return { entry: loop, exits: [{ from: exit, condition: 'unconditional' }] };
      }
      case 'decision': {
        const at = add({ id: id('decision'), type: 'decision', label: 'decision' }, {
          type: 'decision',
          model: block.model,
          ...(block.prompt === undefined ? {} : { prompt: block.prompt }),
          options: block.options.map((o) => o.name),
        });
        const exits: Exit[] = [];
        for (const option of block.options) {
          const piece = stepPiece(option.step);
          edge(at, piece.entry, 'option', option.name);
          exits.push(...piece.exits);
        }
        return { entry: at, exits };
      }
      case 'gate':
        return compileGate(block);
    }
  };

  const compileGate = (block: Extract<WorkflowBlock, { type: 'gate' }>): Piece => {
    const gateName = block.gate.name ?? 'gate';
    const at = id(gateName);
    const person = block.onEscalate === null || block.gate.waitsForPerson !== undefined ? id(`${gateName}:person`) : null;
    add(
      { id: at, type: 'gate', label: gateName },
      {
        type: 'gate',
        gate: block.gate,
        maxRetries: block.maxRetries,
        reflector: block.reflector,
        handles: { PASS: block.onPass !== null, FAIL: block.onFail !== null, ESCALATE: block.onEscalate !== null, TIMEOUT: block.onTimeout !== null },
        person,
      },
    );
    const exits: Exit[] = [];
    const arm = (decision: 'PASS' | 'FAIL' | 'ESCALATE' | 'TIMEOUT', step: Step | null, from = at): void => {
      if (step === null) {
        if (decision !== 'FAIL') exits.push({ from, condition: 'gate', label: decision });
        return;
      }
      const piece = stepPiece(step);
      edge(from, piece.entry, 'gate', decision);
      if (decision === 'FAIL') connect(piece.exits.map((e) => ({ ...e, condition: 'back-edge' })), at);
      else exits.push(...piece.exits);
    };
    // A person's gate only waits; a judging gate routes each decision (ESCALATE to a person when there is no onEscalate).
    const human = block.gate.waitsForPerson !== undefined;
    if (!human) {
      arm('PASS', block.onPass);
      arm('FAIL', block.onFail);
      if (block.onEscalate !== null) arm('ESCALATE', block.onEscalate);
      arm('TIMEOUT', block.onTimeout);
    }
    if (person !== null) {
      add({ id: person, type: 'gate', label: `${gateName}: a person decides` }, { type: 'person', gate: at, timeoutMs: block.gate.waitsForPerson?.timeoutMs ?? null });
      edge(at, person, 'gate', 'WAIT');
      arm('PASS', block.onPass, person);
      // A person's FAIL at a HumanGate revises with onFail and asks again; elsewhere (or without onFail) the run goes on.
      if (human && block.onFail !== null) arm('FAIL', block.onFail, person);
      else exits.push({ from: person, condition: 'gate', label: 'FAIL' });
      arm('TIMEOUT', block.onTimeout, person);
    }
    return { entry: at, exits };
  };

  const body = chain(blocks);
  // The onBudgetExceeded step: reached from wherever a budget is spent, then on to the finish.
  const onBudget = budgetStep === null ? null : stepPiece(budgetStep);
  const finish = add({ id: id('finish'), type: 'step', label: 'finish', kind: 'deterministic', typed: { input: false, output: false } }, { type: 'step', step: FINISH, record: false, handlers: [] });
  connect(body.exits, finish);
  if (onBudget !== null) connect(onBudget.exits, finish);
  for (const [nodeId, rt] of runtime) if (rt.type === 'step' && recorded.has(rt.step.name)) runtime.set(nodeId, { ...rt, record: true });
  const graph: WorkflowGraph = { name, nodes, edges, startNode: body.entry, finishNode: finish };
  if (onBudget !== null) graph.budgetNode = onBudget.entry;
  return { graph, runtime, subWorkflows };
}

/** The finish node's step: passes the last value through. */
const FINISH: Step = Object.freeze({ name: 'finish', execute: (_ctx: AgentContext, input: unknown) => input });

/** The JSON Schemas of a step's declared input and output (null for an untyped step). */
function schemasOf(step: Step): WorkflowGraphNode['schemas'] | null {
  if (step.input === undefined && step.output === undefined) return null;
  const json = (schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> => {
    try {
      const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
      return rest;
    } catch {
      return {};
    }
  };
  const out: NonNullable<WorkflowGraphNode['schemas']> = {};
  if (step.input !== undefined) out.input = json(step.input as z.ZodType, 'input');
  if (step.output !== undefined) out.output = json(step.output as z.ZodType, 'output');
  return out;
}

/** True for a built workflow used as a step. */
/** True for a built workflow used as a step that can wait for a person (a gate that asks one, at any depth). */
function canWait(step: Step): boolean {
  const can = (step as { [CAN_WAIT]?: () => boolean })[CAN_WAIT];
  return typeof can === 'function' && can.call(step);
}

function isWorkflowStep(step: Step): boolean {
  return typeof (step as { compile?: unknown }).compile === 'function' && typeof (step as { toMachine?: unknown }).toMachine === 'function';
}
