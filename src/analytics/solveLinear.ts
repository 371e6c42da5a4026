import { AnalyticsError } from '../errors/AnalyticsError.js';

/** Pivots smaller than this (relative to the row's scale) make the system singular. */
const SINGULAR = 1e-12;

/**
 * Solves `A X = B` for `X` by Gaussian elimination with partial pivoting (`A` is n×n, `B` n×m; both
 * are left unchanged). Throws AnalyticsError `chain_not_absorbing` when `A` is singular, which for
 * `I − Q` means some transient states can never reach an absorbing one.
 *
 * @example
 * solveLinear([[2, 1], [1, 3]], [[3], [5]]); // [[0.8], [1.4]]
 */
export function solveLinear(a: readonly (readonly number[])[], b: readonly (readonly number[])[]): number[][] {
  const n = a.length;
  const m = b[0]?.length ?? 0;
  if (b.length !== n || a.some((row) => row.length !== n)) {
    throw new AnalyticsError(`solveLinear needs an n×n matrix and n right-hand rows; received ${n} rows of A and ${b.length} of B`, 'chain_not_absorbing');
  }
  // Work on one augmented copy: [A | B].
  const rows = a.map((row, i) => [...row, ...b[i]!]);
  const scale = a.map((row) => Math.max(...row.map(Math.abs), 0));
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(rows[r]![col]!) > Math.abs(rows[pivot]![col]!)) pivot = r;
    if (Math.abs(rows[pivot]![col]!) <= SINGULAR * Math.max(1, scale[pivot]!)) {
      throw new AnalyticsError(`the system is singular at column ${col}: some states never reach an end`, 'chain_not_absorbing');
    }
    if (pivot !== col) [rows[col], rows[pivot]] = [rows[pivot]!, rows[col]!];
    const top = rows[col]!;
    for (let r = col + 1; r < n; r++) {
      const row = rows[r]!;
      const factor = row[col]! / top[col]!;
      if (factor === 0) continue;
      for (let c = col; c < n + m; c++) row[c]! -= factor * top[c]!;
    }
  }
  const x = Array.from({ length: n }, () => new Array<number>(m).fill(0));
  for (let r = n - 1; r >= 0; r--) {
    const row = rows[r]!;
    for (let c = 0; c < m; c++) {
      let sum = row[n + c]!;
      for (let k = r + 1; k < n; k++) sum -= row[k]! * x[k]![c]!;
      x[r]![c] = sum / row[r]!;
    }
  }
  return x;
}
