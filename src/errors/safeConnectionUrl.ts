/** Query parameters the drivers read a password from (`pg`: `password`, `sslpassword`; `ioredis`: `password`). */
const SECRET_PARAMS = /^(ssl)?password$/i;

/**
 * A connection URL fit for messages: its password hidden as `***`, in the user-info part and in
 * the query, where the PostgreSQL and Redis drivers also read one (`?password=…`). A URL that does
 * not parse is not shown at all.
 *
 * @example
 * safeConnectionUrl('postgres://app:pw@db:5432/runs?password=pw2'); // 'postgres://app:***@db:5432/runs?password=***'
 */
export function safeConnectionUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    for (const key of [...u.searchParams.keys()]) if (SECRET_PARAMS.test(key)) u.searchParams.set(key, '***');
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}
