import { resolve } from 'node:path';

/** A build of the library named on a benchmark's command line: `label=path/to/dist/bundle/index.js`. */
export interface BuildArg {
  label: string;
  /** The absolute path of the build's `dist/bundle/index.js`. */
  index: string;
}

/**
 * The builds the command line names, in its order, for the benchmarks that compare builds side by
 * side (durableBuilds, firstTokenBuilds, overheadBuilds, spreadBuilds). Throws, saying how to name
 * them, for an argument without a label or when none is given.
 */
export function buildArgs(args: readonly string[] = process.argv.slice(2)): BuildArg[] {
  const builds = args.map((arg) => {
    const at = arg.indexOf('=');
    if (at <= 0) throw new Error(`"${arg}": name each build as label=path/to/dist/bundle/index.js`);
    return { label: arg.slice(0, at), index: resolve(arg.slice(at + 1)) };
  });
  if (builds.length === 0) throw new Error('no build given: pass label=path/to/dist/bundle/index.js for each build to compare');
  return builds;
}
