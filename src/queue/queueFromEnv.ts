import type { RunStore } from '../persistence/RunStore.js';
import type { RegisteredGraph } from '../graph/RunnableGraph.js';
import { QueueError } from './QueueError.js';

/** True when the environment turns the distributed mode on (`SWITCHBOARD_REDIS_URL` is set). */
export function queueConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.SWITCHBOARD_REDIS_URL ?? '') !== '';
}

/**
 * Checks that the distributed mode has what it needs: Redis for the jobs and PostgreSQL for the
 * runs (`SWITCHBOARD_DATABASE_URL`); workers on other machines cannot read a SQLite file.
 */
export function checkQueueEnv(env: NodeJS.ProcessEnv = process.env): { redisUrl: string } {
  const redisUrl = env.SWITCHBOARD_REDIS_URL ?? '';
  if (redisUrl === '') {
    throw new QueueError('the distributed mode needs SWITCHBOARD_REDIS_URL (e.g. redis://127.0.0.1:6379) and SWITCHBOARD_DATABASE_URL (postgres://…)', { code: 'queue_config' });
  }
  if (!/^postgres(ql)?:\/\//.test(env.SWITCHBOARD_DATABASE_URL ?? '')) {
    throw new QueueError(
      'SWITCHBOARD_REDIS_URL is set, so runs go to the queue, but SWITCHBOARD_DATABASE_URL is not a postgres:// URL: workers on other machines need the runs in PostgreSQL; set it, or unset SWITCHBOARD_REDIS_URL for the embedded mode',
      { code: 'queue_config' },
    );
  }
  return { redisUrl };
}

/** The run queue the environment configures (see {@link checkQueueEnv}), over `store`. */
export async function queueFromEnv(store: RunStore, graphs: readonly RegisteredGraph[], env: NodeJS.ProcessEnv = process.env) {
  const { redisUrl } = checkQueueEnv(env);
  const { RunQueue } = await import('./RunQueue.js');
  return new RunQueue({ store, graphs, redisUrl, ...(env.SWITCHBOARD_QUEUE ? { queueName: env.SWITCHBOARD_QUEUE } : {}) });
}
