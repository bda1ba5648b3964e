/**
 * A URL's user-info (`https://user:password@host/`) can hold a credential, such as the basic
 * auth of a webhook receiver. Wherever the sandbox shows a URL outside the partner API's own
 * answers (the inspector, the control API, the request log), it shows it through this.
 *
 * Every scan here is linear in the text: it runs over whole answers and request bodies. A pattern
 * that starts with the scheme (`[a-z][a-z0-9+.-]*://`) would be tried from every letter of a long
 * word and rescan the rest of it each time, so the `://` is found first and the scheme checked
 * backwards from it.
 */

const MASK = '***';
/** `://` and the user-info after it: to the last `@` before the path, as URL parsing reads it. */
const USER_INFO = /:\/\/[^\s/?#\\]*@/g;
/** The same in JSON text (a `"` ends the string), skipping user-info already masked. */
const UNMASKED_USER_INFO_IN_JSON = /:\/\/(?!\*\*\*@)[^\s/?#\\"]*@/g;

function isLetter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
}

/** RFC 3986 scheme characters after the first: letters, digits, `+`, `-`, `.`. */
function isSchemeChar(code: number): boolean {
  return isLetter(code) || (code >= 0x30 && code <= 0x39) || code === 0x2b || code === 0x2d || code === 0x2e;
}

/**
 * Whether a scheme ends at `colon`: the run of scheme characters before it holds a letter to
 * start one. Each run is read once, since a `:` ends it.
 */
function schemeEndsAt(text: string, colon: number): boolean {
  for (let i = colon - 1; i >= 0; i--) {
    const code = text.charCodeAt(i);
    if (isLetter(code)) return true;
    if (!isSchemeChar(code)) return false;
  }
  return false;
}

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
  return text.replace(USER_INFO, (found: string, colon: number) => (schemeEndsAt(text, colon) ? `://${MASK}@` : found));
}

/** Whether a JSON text shows a URL with user-info other than the mask, so that it needs {@link maskJsonStrings}. */
export function hasUnmaskedUserInfo(json: string): boolean {
  for (const found of json.matchAll(UNMASKED_USER_INFO_IN_JSON)) if (schemeEndsAt(json, found.index)) return true;
  return false;
}

/**
 * A `JSON.parse` reviver or `JSON.stringify` replacer that masks the URL user-info of every
 * string, at any depth: for JSON the sandbox shows outside the partner API's answers.
 */
export function maskJsonStrings(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? maskUrlCredentials(value) : value;
}
