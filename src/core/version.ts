/** The package version, kept equal to package.json (a test checks it) so importing reads no file. */
export const VERSION = '0.1.0';
