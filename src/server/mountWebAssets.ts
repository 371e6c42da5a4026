import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';

/** The workbench page's folder: `web/` of this package. */
export const WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** Browser modules served from node_modules under `/vendor/<name>.js`. */
function vendorFiles(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const dagre = dirname(require.resolve('@dagrejs/dagre/package.json'));
  return { 'dagre.js': join(dagre, 'dist', 'dagre.esm.js') };
}

/** A file under `root` for a URL path, or null when the path leaves it. */
function fileUnder(root: string, path: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // The request guard answers malformed paths with 400 first; this keeps the function total.
    return null;
  }
  const file = normalize(join(root, decoded));
  return file.startsWith(root.endsWith(sep) ? root : root + sep) ? file : null;
}

/**
 * No page may frame the workbench: framed invisibly over a page of its own, another site could have
 * the user's clicks land on its buttons (start a scenario, cancel, reply, fork), and the requests the
 * page then sends are its own, same-origin ones, which the request guard lets through.
 */
const NO_FRAMING = { 'x-frame-options': 'DENY', 'content-security-policy': "frame-ancestors 'none'" };

async function serveFile(file: string): Promise<Response | null> {
  try {
    const body = await readFile(file);
    return new Response(body, { headers: { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache', ...NO_FRAMING } });
  } catch {
    return null;
  }
}

/**
 * Serves the workbench page: `/` is `web/index.html`, other paths are files under `web/`, and
 * `/vendor/dagre.js` is the layout library's browser module from node_modules.
 */
export function mountWebAssets(app: Hono, root: string = WEB_ROOT): void {
  const vendor = vendorFiles();
  app.get('/vendor/:file', async (c) => {
    const file = vendor[c.req.param('file')];
    return (file === undefined ? null : await serveFile(file)) ?? c.notFound();
  });
  app.get('/*', async (c) => {
    const path = c.req.path === '/' ? '/index.html' : c.req.path;
    if (path.startsWith('/api/')) return c.notFound();
    const file = fileUnder(root, path);
    return (file === null ? null : await serveFile(file)) ?? c.notFound();
  });
}
