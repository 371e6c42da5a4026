/** Runs every example in examples/ in order, offline, printing a header before each. */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../examples/', import.meta.url));
const examples = readdirSync(dir).filter((f) => /^\d\d-.+\.ts$/.test(f)).sort();
let failed = 0;
for (const file of examples) {
  process.stdout.write(`\n━━ ${file} ━━\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${file}`], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.stdout.write(`\n${examples.length - failed}/${examples.length} examples ran.\n`);
process.exitCode = failed === 0 ? 0 : 1;
