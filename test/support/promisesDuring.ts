import { createHook } from 'node:async_hooks';

/** Promises created while `task` runs (every one of them is what a budget's async context pays for on Node 20). */
export async function promisesDuring(task: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') count += 1;
    },
  }).enable();
  try {
    await task();
  } finally {
    hook.disable();
  }
  return count;
}
