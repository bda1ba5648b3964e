/**
 * A URL's user-info (`https://user:password@host/`) can hold a credential, such as the basic
 * auth of a webhook receiver. Wherever the sandbox shows a URL outside the partner API's own
 * answers (the inspector, the control API, the request log), it shows it through this.
 */

const MASK = '***';
/** `scheme://user-info@` inside any text; the user-info runs to the last `@` before the path, as URL parsing reads it. */
const USER_INFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/?#\\]*@/gi;

/** `text` with the user-info of every URL in it replaced by `***`; text without one is returned as is. */
export function maskUrlCredentials(text: string): string {
  if (!text.includes('@')) return text;
  try {
    // A whole URL is read as a client would read it (tabs and newlines dropped, `\` a slash).
    const url = new URL(text);
    if (url.username !== '' || url.password !== '') {
      url.username = MASK;
      url.password = '';
      return url.href;
    }
  } catch {
    // not one URL: free text that may hold some
  }
  return text.replace(USER_INFO, `$1${MASK}@`);
}

/**
 * A `JSON.parse` reviver or `JSON.stringify` replacer that masks the URL user-info of every
 * string, at any depth: for JSON the sandbox shows outside the partner API's answers.
 */
export function maskJsonStrings(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? maskUrlCredentials(value) : value;
}
