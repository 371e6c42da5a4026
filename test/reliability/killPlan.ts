import type { KillSpec, Reference } from './killTrial.js';


const pick = (random: () => number, n: number): number => 1 + Math.floor(random() * n);

/** A kill inside one leg of the reference's shape: at an effect, a model call, or a trace line. */
function killIn(random: () => number, leg: { models: number; effects: number }, pathLength: number, traceLines: boolean): KillSpec {
  const roll = random();
  const phase = () => (random() < 0.5 ? 'before' : 'after');
  if (leg.effects > 0 && roll < 0.45) return { killAt: `effect:${pick(random, leg.effects)}:${random() < 0.65 ? 'after' : 'before'}` };
  if (leg.models > 0 && (roll < 0.8 || !traceLines)) return { killAt: `model:${pick(random, leg.models)}:${phase()}` };
  if (traceLines) return { killAtLine: pick(random, Math.max(1, pathLength - 1)) };
  return {};
}

/**
 * The kills of one trial, leg by leg (start, then whatever comes next: recovery or a resume). The
 * first kill falls inside the start leg, or inside the resume leg for a scenario with a reply; one
 * trial in four also kills the leg after it (a recovery that dies too), at its first model call or
 * effect.
 */
export function planTrial(random: () => number, ref: Reference): Array<KillSpec | undefined> {
  const [start, resume] = ref.legs;
  const plan: Array<KillSpec | undefined> = [];
  if (resume !== undefined && random() < 0.4 && resume.models + resume.effects > 0) {
    plan.push(undefined, killIn(random, resume, ref.final.path.length, false));
  } else {
    plan.push(killIn(random, start!, ref.final.path.length, true));
  }
  if (random() < 0.25) plan.push({ killAt: `${random() < 0.5 ? 'model' : 'effect'}:1:${random() < 0.5 ? 'before' : 'after'}` });
  return plan;
}
