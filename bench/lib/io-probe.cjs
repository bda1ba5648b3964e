'use strict';
/**
 * Preload of the cold-start figure (`node --require bench/lib/io-probe.cjs`): records every fs, net
 * and dns call made BY LOADED CODE (its direct caller is not Node's own module loader), so reading
 * the package's files to load them does not count, but a top-level readFileSync or connect does.
 * The calls are left on globalThis.__ioProbe for the probe script to print.
 */
const fs = require('node:fs');
const net = require('node:net');
const dns = require('node:dns');

const calls = [];
globalThis.__ioProbe = { calls };

function directCaller() {
  const frames = (new Error().stack || '').split('\n').slice(1);
  return frames.find((frame) => !frame.includes('io-probe.cjs')) || '';
}

function wrap(target, name, label) {
  const original = target[name];
  if (typeof original !== 'function') return;
  target[name] = function probed(...args) {
    const caller = directCaller();
    if (!caller.includes('node:')) {
      calls.push({ call: label, target: typeof args[0] === 'string' ? args[0] : String(args[0]), caller: caller.trim() });
    }
    return original.apply(this, args);
  };
}

const FS_CALLS = [
  'readFileSync',
  'readFile',
  'openSync',
  'open',
  'readdirSync',
  'readdir',
  'statSync',
  'stat',
  'lstatSync',
  'existsSync',
  'accessSync',
  'access',
  'createReadStream',
  'createWriteStream',
  'writeFileSync',
  'writeFile',
  'watch',
];
for (const name of FS_CALLS) wrap(fs, name, `fs.${name}`);
for (const name of ['readFile', 'open', 'readdir', 'stat', 'access', 'writeFile']) wrap(fs.promises, name, `fs.promises.${name}`);
for (const name of ['connect', 'createConnection']) wrap(net, name, `net.${name}`);
wrap(net.Socket.prototype, 'connect', 'net.Socket.connect');
wrap(dns, 'lookup', 'dns.lookup');
wrap(dns.promises, 'lookup', 'dns.promises.lookup');
