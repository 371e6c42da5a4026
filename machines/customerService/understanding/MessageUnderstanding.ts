import { loadPolicyDocuments } from '../../../specialists/policy/PolicyDocument.js';
import type { LabelledMessage, MessageEntities, TaskKind } from '../dataset/LabelledMessage.js';
import type { Route } from '../Classification.js';
import { extractEntities } from './extractEntities.js';
import { ORDER_INTENTS, orderIntentOf, type OrderIntent } from './orderIntentOf.js';
import { SoftmaxClassifier, type SoftmaxClassifierData } from './SoftmaxClassifier.js';
import { SpellingVocabulary } from './SpellingVocabulary.js';
import { splitByOrder } from './splitByOrder.js';
import { splitClauses, type Clause } from './splitClauses.js';
import { featuresOf, tokensOf } from './textFeatures.js';

const ROUTES: readonly Route[] = ['rag', 'tool', 'report', 'multi', 'human', 'general'];
const KINDS: readonly TaskKind[] = ['rag', 'tool', 'report'];
/** Whether a message asks for a person (a dispute, a complaint, an explicit request) or not. */
type PersonIntent = 'person' | 'other';
const PERSON_INTENTS: readonly PersonIntent[] = ['person', 'other'];

/** One specialist task of a composite message: the kind and what to ask the specialist. */
export interface UnderstoodTask {
  kind: TaskKind;
  input: string;
}

/** What the offline understanding makes of a message. */
export interface Understanding {
  route: Route;
  /** The calibrated probability of the route (for `multi`, of its least certain task). */
  confidence: number;
  entities: MessageEntities;
  /** For `multi`: two or more tasks, one per specialist kind (one `tool` task per order named), in message order. Otherwise empty. */
  tasks: UnderstoodTask[];
  /** The message-level probability of each route. */
  scores: Record<Route, number>;
  reason?: string;
}

/** Settings of the understanding, chosen by cross-validation on the training part. */
export interface UnderstandingSettings {
  /** Least probability for a clause to count as a specialist task (default 0.4). */
  clauseThreshold: number;
  /** Softmax temperature that calibrates the probabilities (default 0.7). */
  temperature: number;
  /** Least probability for a clause of a message read as small talk to be answered as a request instead (default 0.75). */
  courtesyThreshold: number;
  /** Least probability for a clause of another kind than the message's own single route to make it composite (default 0.9). */
  secondThreshold: number;
  /**
   * Least probability of the person intent for a message (or one of its clauses) to go to a person
   * whatever the route scores say, e.g. a charge dispute that names an order (default 0.5).
   */
  personThreshold: number;
  /**
   * Least probability for a clause of another kind than the message's own single route to make it
   * composite when the clause is put as a question or request of its own ("…? And is the speaker
   * waterproof?", "also tell me the return policy"), where a clause of context needs
   * `secondThreshold`. Default 0.8, chosen by cross-validation.
   */
  questionThreshold: number;
  /** Least probability for another request in a message for a person to be answered beside it (default 0.9). */
  besidePersonThreshold: number;
}

/** A trained understanding as plain JSON (see {@link MessageUnderstanding.toJSON}). */
export interface MessageUnderstandingData {
  /** The feature names of the three classifiers, once (their rows index into it). */
  features: string[];
  model: SoftmaxClassifierData<Route>;
  intent: SoftmaxClassifierData<OrderIntent>;
  person: SoftmaxClassifierData<PersonIntent>;
  vocabulary: Array<[string, number]>;
  settings: UnderstandingSettings;
}

const DEFAULT_SETTINGS: UnderstandingSettings = { clauseThreshold: 0.4, temperature: 0.7, courtesyThreshold: 0.75, secondThreshold: 0.9, personThreshold: 0.5, besidePersonThreshold: 0.9, questionThreshold: 0.8 };

const argmax = <L extends string>(scores: Record<L, number>, labels: readonly L[]): L => labels.reduce((a, b) => (scores[a] >= scores[b] ? a : b));

/**
 * The offline understanding of customer messages, learned from labelled examples: entities are
 * read and normalized (order numbers, report months against a clock, LED fault codes), misspelled
 * words are corrected against the known vocabulary (MiniSearch fuzzy search), and a softmax
 * classifier over stemmed words, word bigrams and character trigrams picks the route. A message is
 * cut into clauses, each classified on its own: two or more specialist kinds make it `multi`, with one task per kind — and one order
 * task per order when several orders are named; a message the classifier calls `multi` that cannot
 * be split goes to its strongest single intent. A second classifier reads whether an order
 * question is about money back or the order's status.
 *
 * @example
 * const nlu = MessageUnderstanding.train(loadDataset('train'));
 * nlu.understand('How much would I get back if I return order SO20261002?').route; // 'tool'
 */
export class MessageUnderstanding {
  readonly #model: SoftmaxClassifier<Route>;
  readonly #intent: SoftmaxClassifier<OrderIntent>;
  readonly #person: SoftmaxClassifier<PersonIntent>;
  readonly #spelling: SpellingVocabulary;
  readonly #settings: UnderstandingSettings;

  private constructor(
    model: SoftmaxClassifier<Route>,
    intent: SoftmaxClassifier<OrderIntent>,
    person: SoftmaxClassifier<PersonIntent>,
    spelling: SpellingVocabulary,
    settings: UnderstandingSettings,
  ) {
    this.#model = model;
    this.#intent = intent;
    this.#person = person;
    this.#spelling = spelling;
    this.#settings = settings;
  }

  /**
   * Learns from labelled messages, plus the knowledge base's sentences as examples of policy
   * questions (`rag`); the order questions among them also teach what an order question is after
   * ({@link orderIntentOf}). Deterministic: the same examples give the same model.
   */
  static train(messages: readonly LabelledMessage[], settings: Partial<UnderstandingSettings> = {}): MessageUnderstanding {
    const examples = messages.map((m) => ({ tokens: tokensOf(m.text, extractEntities(m.text, { now: Date.parse(m.now) }).spans), label: m.route }));
    const kb = loadPolicyDocuments()
      .flatMap((d) => [d.title, ...d.text.split(/(?<=\.)\s+/)])
      .map((text) => ({ tokens: tokensOf(text), label: 'rag' as Route }));
    const spelling = new SpellingVocabulary([...examples, ...kb].map((e) => e.tokens));
    // Training text is learned as written; only what the model reads later is corrected.
    const model = SoftmaxClassifier.train(
      [...examples, ...kb].map((e) => ({ features: featuresOf(e.tokens), label: e.label })),
      ROUTES,
    );
    const intent = SoftmaxClassifier.train(
      messages.flatMap((m, i) => {
        const label = orderIntentOf(m);
        return label === undefined ? [] : [{ features: featuresOf(examples[i]!.tokens), label }];
      }),
      ORDER_INTENTS,
    );
    // The person intent is learned apart from the routes: in a six-way choice, the words of an order
    // question ("refund", an order number) outweigh "charged twice" or "chargeback"; here they
    // are evidence of nothing, as many messages to a person name an order too.
    const person = SoftmaxClassifier.train(
      messages.map((m, i) => ({ features: featuresOf(examples[i]!.tokens), label: m.route === 'human' || m.tasks?.includes('human') ? ('person' as const) : ('other' as const) })),
      PERSON_INTENTS,
    );
    const merged = { ...DEFAULT_SETTINGS, ...settings };
    model.temperature = merged.temperature;
    return new MessageUnderstanding(model, intent, person, spelling, merged);
  }

  /**
   * What an order question is after: `refund` when the customer asks about money back (a refund,
   * a return, a cancellation, in whatever words), else `status`. The order planner computes a
   * refund estimate only for the first.
   */
  orderIntent(text: string, options: { now?: number } = {}): OrderIntent {
    const { spans } = extractEntities(text, { now: options.now ?? Date.now() });
    const p = this.#intent.predict(featuresOf(tokensOf(text, spans).map((t) => this.#spelling.correct(t))));
    return p.refund >= p.status ? 'refund' : 'status';
  }

  /** What it learned, as plain JSON; {@link MessageUnderstanding.fromJSON} gives back an understanding that answers exactly the same. */
  toJSON(): MessageUnderstandingData {
    const names = new Map<string, number>();
    const [model, intent, person] = [this.#model.toJSON(names), this.#intent.toJSON(names), this.#person.toJSON(names)];
    return { features: [...names.keys()], model, intent, person, vocabulary: this.#spelling.counts(), settings: { ...this.#settings } };
  }

  /** An understanding from {@link MessageUnderstanding.toJSON}'s output, without training. */
  static fromJSON(data: MessageUnderstandingData): MessageUnderstanding {
    return new MessageUnderstanding(
      SoftmaxClassifier.fromJSON(data.model, data.features),
      SoftmaxClassifier.fromJSON(data.intent, data.features),
      SoftmaxClassifier.fromJSON(data.person, data.features),
      SpellingVocabulary.fromCounts(data.vocabulary), { ...DEFAULT_SETTINGS, ...data.settings });
  }

  /**
   * The probability of each route for a text, and that it asks for a person (a dispute, a
   * complaint, an explicit request), from one reading of its words (spelling correction is the costly part).
   */
  #read(text: string, spans: Parameters<typeof tokensOf>[1]): { scores: Record<Route, number>; person: number } {
    const features = featuresOf(tokensOf(text, spans).map((t) => this.#spelling.correct(t)));
    return { scores: this.#model.predict(features), person: this.#person.predict(features).person };
  }

  /**
   * The route, entities and (for `multi`) tasks of a message; `now` (ms since the epoch, default
   * the current time) is what relative months are read against.
   */
  understand(text: string, options: { now?: number } = {}): Understanding {
    const { entities, spans } = extractEntities(text, { now: options.now ?? Date.now() });
    const { scores, person } = this.#read(text, spans);
    const top = argmax(scores, ROUTES);
    if (spans.length === 0 && !tokensOf(text).some((t) => this.#spelling.has(this.#spelling.correct(t)))) {
      // Not one word the model has seen: whatever the scores say, there is no evidence behind them.
      return { route: top, confidence: Math.min(scores[top], 0.2), entities, tasks: [], scores, reason: 'the message has no word the desk knows' };
    }
    if (top === 'human' || person >= this.#settings.personThreshold) {
      const found = splitClauses(text, spans).length >= 2 ? this.#tasks(text, spans, entities, { scores, person }) : [];
      return this.#besidePerson(found, { route: 'human', confidence: Math.max(scores.human, person), entities, tasks: [], scores });
    }
    if (top === 'general') {
      // Small talk around a request ("Thanks for the help! Anyway, what's the warranty?") is the request.
      const asked = splitClauses(text, spans).length >= 2 ? this.#tasks(text, spans, entities, { scores, person }).filter((t) => t.confidence >= this.#settings.courtesyThreshold) : [];
      if (asked.some((t) => t.kind === 'human')) return this.#besidePerson(asked, { route: 'human', confidence: scores.human, entities, tasks: [], scores });
      if (asked.length === 0) return { route: 'general', confidence: scores.general, entities, tasks: [], scores };
      if (asked.length >= 2) return { route: 'multi', confidence: Math.min(...asked.map((t) => t.confidence)), entities, tasks: asked.map(({ kind, input }) => ({ kind, input })), scores };
      return { route: asked[0]!.kind, confidence: asked[0]!.confidence, entities, tasks: [], scores, reason: 'small talk around one request: the request is answered' };
    }
    // A message read as one kind is composite only when its other requests are clear on their own
    // (a clause of context beside an order question, "I changed my mind", is not a policy question).
    const tasks = this.#tasks(text, spans, entities, { scores, person }).filter(
      (t) => top === 'multi' || t.kind === top || t.confidence >= (t.asks ? this.#settings.questionThreshold : this.#settings.secondThreshold),
    );
    if (tasks.some((t) => t.kind === 'human')) return this.#besidePerson(tasks, { route: 'human', confidence: scores.human, entities, tasks: [], scores });
    if (tasks.length >= 2) return { route: 'multi', confidence: Math.min(...tasks.map((t) => t.confidence)), entities, tasks: tasks.map(({ kind, input }) => ({ kind, input })), scores };
    if (top !== 'multi') return { route: top, confidence: scores[top], entities, tasks: [], scores };
    // Called composite but not splittable: its strongest single intent.
    const single = tasks[0]?.kind ?? argmax(scores, KINDS);
    return { route: single, confidence: Math.min(1, scores[single] + scores.multi), entities, tasks: [], scores };
  }

  /**
   * A message with a part for a person (a dispute, a complaint, a request for a person): it goes to
   * a person whatever the order intent says, and only other requests that are clear on their own
   * ("Where is SO20261003? And I was charged twice for SO20261001…") are answered beside it, as
   * `multi` with a `human` task. An order request beside it is answered only when it names an order
   * and the person part names others: the order a dispute is about gets no order answer.
   */
  #besidePerson(found: readonly PlacedTask[], toPerson: Understanding): Understanding {
    const disputed = new Set(found.filter((t) => t.kind === 'human').flatMap((t) => t.orderIds));
    const answered = found.filter(
      (t) =>
        t.kind !== 'human' &&
        t.confidence >= this.#settings.besidePersonThreshold &&
        (t.kind !== 'tool' || (disputed.size > 0 && t.orderIds.length > 0 && t.orderIds.every((id) => !disputed.has(id)))),
    );
    const person = found.filter((t) => t.kind === 'human');
    if (answered.length === 0 || person.length === 0) return { ...toPerson, confidence: Math.max(toPerson.confidence, ...person.map((t) => t.confidence)), reason: 'the customer asks for a person or disputes a decision' };
    const tasks = found.filter((t) => answered.includes(t) || person.includes(t));
    return { ...toPerson, route: 'multi', confidence: Math.min(...tasks.map((t) => t.confidence)), tasks: tasks.map(({ kind, input }) => ({ kind, input })), reason: 'a person takes the part the desk cannot answer' };
  }

  /** The specialist tasks in a message: clauses grouped by kind, each task carrying the entities its specialist needs. */
  #tasks(
    text: string,
    spans: ReturnType<typeof extractEntities>['spans'],
    entities: MessageEntities,
    message: { scores: Record<Route, number>; person: number },
  ): PlacedTask[] {
    const grouped = new Map<TaskKind, { clauses: Clause[]; confidence: number }>();
    const clauses = splitClauses(text, spans);
    const unplaced: Clause[] = [];
    for (const clause of clauses) {
      // A clause is one request: the weight on "several intents" is spread over the single routes.
      const read = clauses.length === 1 ? message : this.#read(clause.text, clause.spans);
      const all = read.scores;
      const rest = 1 - all.multi || 1;
      const scores = Object.fromEntries(ROUTES.map((r) => [r, r === 'multi' ? 0 : all[r] / rest])) as Record<Route, number>;
      const kind: TaskKind = read.person >= this.#settings.personThreshold ? 'human' : argmax(scores, KINDS);
      if (kind === 'human') scores.human = read.person;
      else if (argmax(scores, ROUTES) !== kind || scores[kind] < this.#settings.clauseThreshold) {
        unplaced.push(clause);
        continue;
      }
      const group = grouped.get(kind) ?? { clauses: [], confidence: 0 };
      group.clauses.push(clause);
      group.confidence = Math.max(group.confidence, scores[kind]);
      grouped.set(kind, group);
    }
    const tasks: PlacedTask[] = [];
    const orderIdsOf = (clauses: readonly Clause[]) => clauses.flatMap((c) => c.spans.filter((s) => s.kind === 'orderId').map((s) => s.value));
    for (const [kind, group] of grouped) {
      if (kind === 'tool') {
        // Several orders in one request: one task per order, so none is answered for silently.
        // A bare order number the classifier could not place ("…and SO20261002") belongs to it too.
        const named = [...group.clauses, ...unplaced.filter((c) => c.spans.some((s) => s.kind === 'orderId'))].sort((a, b) => a.start - b.start);
        const orders = splitByOrder(named);
        if (orders.length >= 2) {
          for (const o of orders) tasks.push({ kind, input: taskInput(kind, o.input, { ...entities, orderId: o.orderId }), confidence: group.confidence, orderIds: [o.orderId], asks: group.clauses.some(asksSomething) });
          continue;
        }
      }
      const joined = group.clauses.map((c) => c.text.replace(/[.?!,;]+$/, '')).join('; ');
      tasks.push({ kind, input: taskInput(kind, joined, entities), confidence: group.confidence, orderIds: orderIdsOf(group.clauses), asks: group.clauses.some(asksSomething) });
    }
    return tasks;
  }
}

/** A task as it is found: how sure the classifier is of its kind, and the orders its clauses name. */
type PlacedTask = UnderstoodTask & { confidence: number; orderIds: string[]; asks: boolean };

/**
 * Words that open a question or a request ("where is…", "can you…", "tell me…", "and is…"), after
 * the connectors and filler that start a clause.
 */
const ASKING =
  /^(?:(?:and|also|plus|then|so|ok|okay|now|btw|oh|one more thing|another thing|separately|second(?:ly)?|lastly|finally|last)\b[\s,:-]*)*(?:what|what's|whats|where|where's|wheres|when|why|which|who|how|is|are|was|were|do|does|did|can|could|would|will|should|may|tell|explain|send|give|show|share|check|let me know|please|pls|plz|i'd like to know|i want to know)\b/i;

/** Whether a clause is put as a question or a request of its own, not as context. */
const asksSomething = (clause: Clause): boolean => /\?\s*$/.test(clause.text) || ASKING.test(clause.text.trim());

/** A task's question, with the normalized entity its specialist reads appended when the clause does not spell it that way. */
function taskInput(kind: TaskKind, text: string, entities: MessageEntities): string {
  const input = text.replace(/^./, (c) => c.toUpperCase());
  if (kind === 'tool' && entities.orderId && !input.includes(entities.orderId)) return `${input} (order ${entities.orderId})`;
  if (kind === 'report' && entities.period && !input.includes(entities.period)) return `${input} (period ${entities.period})`;
  if (kind === 'rag' && entities.faultCode && !input.toUpperCase().includes(entities.faultCode)) return `${input} (fault code ${entities.faultCode})`;
  return input;
}
