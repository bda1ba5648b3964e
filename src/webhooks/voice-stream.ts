import { createServer, type IncomingMessage, type Server } from 'node:http';
import { integerProblem, positiveIntegerProblem } from '../shared/integer-option.js';
import { checkOption } from './options.js';
import { listen } from '../shared/listen.js';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { ConfigurationError } from '../core/errors.js';
import { refuseUnknownOptions } from '../core/unknown-options.js';
import type { OptionNames } from '../shared/option-names.js';
import { VOICE_CALL_OPTION_NAMES, VoiceCall, type VoiceCallOptions } from './voice-call.js';

type WsModule = typeof import('ws');

const WS_MISSING_MESSAGE =
  'The voice-stream receiver needs the WebSocket library `ws`, an optional peer dependency of mobile-partner-sdk: npm install ws';

let wsModule: Promise<WsModule> | undefined;

function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/**
 * `ws` is loaded on first use, not at import: it is an optional peer dependency, so an app that
 * only verifies webhooks never installs it, and one that receives voice streams gets an error
 * naming the package instead of a module-resolution crash.
 */
function loadWs(): Promise<WsModule> {
  wsModule ??= import('ws').catch((error: unknown) => {
    wsModule = undefined;
    throw isModuleNotFound(error) ? new ConfigurationError(WS_MISSING_MESSAGE) : error;
  });
  return wsModule;
}

/** Options of {@link VoiceStreamReceiver}. */
export interface VoiceStreamOptions extends VoiceCallOptions {
  /** Only upgrades to this path are taken (query string ignored); default any path. */
  path?: string;
  /** Checks the upgrade request, e.g. the credential of the registration's authentication object; false answers 401. */
  authorize?: (request: IncomingMessage) => boolean | Promise<boolean>;
  /** Called with each new call. Without it, calls wait to be taken from `calls()`. */
  onCall?: (call: VoiceCall) => void;
  /** Largest single WebSocket message accepted, bytes, a positive integer. Default 1 MiB. */
  maxPayloadBytes?: number;
}

const RECEIVER_OPTION_NAMES = {
  ...VOICE_CALL_OPTION_NAMES,
  path: true,
  authorize: true,
  onCall: true,
  maxPayloadBytes: true,
} as const satisfies OptionNames<VoiceStreamOptions>;

/**
 * Accepts the service's outbound WebSocket connections to `voiceStreamUrl` (spec part 4,
 * registration rule 2) on a server you already run:
 *
 * ```ts
 * const receiver = new VoiceStreamReceiver({ path: '/voice' }).attach(httpServer);
 * for await (const call of receiver.calls()) handle(call);
 * ```
 */
export class VoiceStreamReceiver {
  readonly #options: VoiceStreamOptions;
  readonly #wss: Promise<WebSocketServer>;
  readonly #waiting: VoiceCall[] = [];
  readonly #live = new Set<VoiceCall>();
  #wakeConsumer: (() => void) | undefined;
  #closed = false;

  /**
   * @throws `ConfigurationError` (exported by `mobile-partner-sdk`) for an unknown option, naming it and the nearest known one,
   * or when `maxPayloadBytes` or `maxQueuedFrames` is not a positive integer.
   */
  constructor(options: VoiceStreamOptions = {}) {
    refuseUnknownOptions(options, RECEIVER_OPTION_NAMES, 'VoiceStreamReceiver');
    checkOption('VoiceStreamReceiver', 'maxPayloadBytes', options.maxPayloadBytes, positiveIntegerProblem);
    checkOption('VoiceStreamReceiver', 'maxQueuedFrames', options.maxQueuedFrames, positiveIntegerProblem);
    this.#options = options;
    this.#wss = loadWs().then((ws) => new ws.WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes ?? 1024 * 1024 }));
    // Reported by ready(), calls() and the refused upgrades, never as an unhandled rejection.
    this.#wss.catch(() => undefined);
  }

  /**
   * Resolves once the receiver can accept calls; rejects with a {@link ConfigurationError} naming
   * `npm install ws` when the optional peer dependency `ws` is not installed.
   */
  async ready(): Promise<this> {
    await this.#wss;
    return this;
  }

  #matches(request: IncomingMessage): boolean {
    if (this.#options.path === undefined) return true;
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    return (query === -1 ? url : url.slice(0, query)) === this.#options.path;
  }

  /**
   * Takes an HTTP upgrade if it is for this receiver's path; returns false (socket untouched)
   * otherwise, so several receivers can share one server.
   */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    if (!this.#matches(request)) return false;
    if (this.#closed) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
      return true;
    }
    void this.#accept(request, socket, head);
    return true;
  }

  async #accept(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const allowed = this.#options.authorize ? await Promise.resolve(this.#options.authorize(request)).catch(() => false) : true;
    if (!allowed) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    let wss: WebSocketServer;
    try {
      wss = await this.#wss;
    } catch {
      socket.end('HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const call = new VoiceCall(ws, request, { maxQueuedFrames: this.#options.maxQueuedFrames });
      this.#live.add(call);
      ws.once('close', () => this.#live.delete(call));
      if (this.#options.onCall) {
        this.#options.onCall(call);
        return;
      }
      this.#waiting.push(call);
      this.#wakeConsumer?.();
    });
  }

  /** Listens to `server`'s upgrade events; upgrades for other paths are left to other listeners or refused when none. */
  attach(server: Server): this {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!this.handleUpgrade(request, socket, head) && server.listenerCount('upgrade') === 1) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      }
    });
    return this;
  }

  /**
   * Each accepted call, in order of arrival, for one consumer; ends when the receiver is closed.
   * Not used when `onCall` is given (calls are then handed to it and never queued). Throws the
   * {@link ConfigurationError} of {@link ready} when `ws` is not installed.
   */
  async *calls(): AsyncGenerator<VoiceCall, void, undefined> {
    await this.#wss;
    for (;;) {
      const call = this.#waiting.shift();
      if (call) {
        yield call;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        this.#wakeConsumer = resolve;
      });
      this.#wakeConsumer = undefined;
    }
  }

  /**
   * Hangs up every live call (1001 going away) and stops accepting new ones; calls whose peer
   * does not finish the closing handshake within `graceMs` are dropped.
   */
  async close(graceMs = 1000): Promise<void> {
    this.#closed = true;
    this.#waiting.length = 0;
    for (const call of this.#live) call.close(1001, 'receiver closing');
    this.#wakeConsumer?.();
    const wss = await this.#wss.catch(() => undefined);
    if (!wss) return;
    const closed = new Promise<void>((resolve) => wss.close(() => resolve()));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), graceMs);
      timer.unref();
    });
    if ((await Promise.race([closed, late])) === 'late') {
      for (const call of this.#live) call.terminate();
      await closed;
    }
    clearTimeout(timer);
  }
}

/** Options of {@link createVoiceStreamServer}: the receiver's, and where to listen. */
export interface VoiceStreamServerOptions extends VoiceStreamOptions {
  /** The port to listen on, an integer 0..65535; default 0 (any free port). */
  port?: number;
  /** The address to listen on; default 127.0.0.1; use 0.0.0.0 to accept the service from outside the host. */
  host?: string;
}

const SERVER_OPTION_NAMES = { ...RECEIVER_OPTION_NAMES, port: true, host: true } as const satisfies OptionNames<VoiceStreamServerOptions>;

/** A listening voice-stream server, from {@link createVoiceStreamServer}. */
export interface VoiceStreamServer {
  /** `ws://host:port/path`, for the registration's voiceStreamUrl. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** The Node HTTP server underneath. */
  server: Server;
  /** The receiver attached to it. */
  receiver: VoiceStreamReceiver;
  /** Each new call, as it connects; ends when the server closes. */
  calls(): AsyncGenerator<VoiceCall, void, undefined>;
  /** Closes every call and the server. */
  close(): Promise<void>;
}

/**
 * A stand-alone HTTP server that only accepts voice streams. Rejects with a
 * {@link ConfigurationError} naming `npm install ws` when that optional peer is not installed,
 * or naming an unknown option (and the nearest known one) or an option out of its range (`port`
 * an integer 0..65535) before anything listens.
 */
export async function createVoiceStreamServer(options: VoiceStreamServerOptions = {}): Promise<VoiceStreamServer> {
  refuseUnknownOptions(options, SERVER_OPTION_NAMES, 'createVoiceStreamServer');
  // listen() would also take a string ('8080', ' 80 ', '0x50') and read it with Number().
  checkOption('createVoiceStreamServer', 'port', options.port, (value) => integerProblem(value, 0, 65_535));
  const { port: _port, host = '127.0.0.1', ...receiverOptions } = options;
  const receiver = await new VoiceStreamReceiver(receiverOptions).ready();
  const server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
    res.end('WebSocket upgrade required');
  });
  receiver.attach(server);
  const { port, urlHost } = await listen(server, options.port ?? 0, host);
  return {
    url: `ws://${urlHost}:${port}${options.path ?? '/'}`,
    port,
    server,
    receiver,
    calls: () => receiver.calls(),
    close: async () => {
      await receiver.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
