#!/usr/bin/env node
// Completes package-lock.json with an entry for every optional platform package a dependency
// names (rollup's native builds for other systems) that the lock lacks. A registry that serves
// only this platform's builds leaves them out, and `npm ci` then refuses the lock as out of sync.
// The entries carry `os`/`cpu`, so npm skips them on other platforms as it would any optional
// dependency for a foreign system. Run after changing dependencies: node .ci/complete-lockfile.cjs
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;
const platform = /-(android|darwin|freebsd|linux|openbsd|openharmony|win32|sunos|aix|netbsd)-([a-z0-9]+)/;
let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = location ? `${location}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    const record = { version, dev: entry.dev, optional: true };
    const match = name.match(platform);
    if (match) {
      record.os = [match[1]];
      record.cpu = [match[2]];
    }
    packages[`node_modules/${name}`] = record;
    added += 1;
  }
}
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} optional platform entries added`);
