/** Whether this module runs from the TypeScript sources (src/) rather than the build (dist/src/). */
export const FROM_SOURCE = import.meta.url.endsWith('.ts');

/**
 * A file of this package by its path from the package root (where package.json is), the same from
 * the sources (`src/cli/`) and from the build (`dist/src/cli/`).
 */
export function packageUrl(path: string): URL {
  return new URL(`${FROM_SOURCE ? '../../' : '../../../'}${path}`, import.meta.url);
}
