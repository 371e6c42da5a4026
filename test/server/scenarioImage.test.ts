import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refundApproval } from '../../machines/refundApproval.js';
import { testWorkbench } from './workbenchTarget.js';

const root = mkdtempSync(join(tmpdir(), 'sb-scenario-image-'));
writeFileSync(join(root, 'notes.png'), 'not a picture');
const scenario = (id: string, image: string) => ({ id, title: id, message: 'Please refund order SO20261001', graph: 'refund-approval', image });
const wb = testWorkbench({
  graphs: [refundApproval()],
  scenarioRoot: root,
  scenarios: [scenario('zero', '/dev/zero'), scenario('text', 'notes.png'), scenario('dir', '.')],
});
afterAll(() => wb.shutdown());

describe('scenario pictures', () => {
  it('are read like --image: a device, a text file named .png or a directory is a configuration error and starts no run', async () => {
    const expected: Record<string, string> = {
      zero: 'scenario image /dev/zero "/dev/zero": is a character device, not a picture file',
      text: `scenario image notes.png "${join(root, 'notes.png')}": is not a PNG, JPEG, GIF or WebP image`,
      dir: `scenario image . "${root}": is a directory, not a picture file`,
    };
    for (const [id, message] of Object.entries(expected)) {
      const res = await wb.json(`/api/scenarios/${id}/runs?wait=true`, { method: 'POST', json: {} });
      expect(res.status, id).toBe(500);
      expect(res.body.error.code).toBe('server_config');
      expect(res.body.error.message).toContain(message);
    }
    expect(await wb.store.listRuns()).toEqual([]);
  });
});
