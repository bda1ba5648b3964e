import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { VoiceCall, type VoiceCallOptions } from './voice-call.js';

export interface VoiceStreamOptions extends VoiceCallOptions {
  /** Only upgrades to this path are taken (query string ignored); default any path. */
  path?: string;
  /** Checks the upgrade request, e.g. the credential of the registration's authentication object; false answers 401. */
  authorize?: (request: IncomingMessage) => boolean | Promise<boolean>;
  /** Called with each new call. Without it, calls wait to be taken from `calls()`. */
  onCall?: (call: VoiceCall) => void;
  /** Largest single WebSocket message accepted, bytes. Default 1 MiB. */
  maxPayloadBytes?: number;
}

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
  readonly #wss: WebSocketServer;
  readonly #waiting: VoiceCall[] = [];
  readonly #live = new Set<VoiceCall>();
  #wakeConsumer: (() => void) | undefined;
  #closed = false;

  constructor(options: VoiceStreamOptions = {}) {
    this.#options = options;
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes ?? 1024 * 1024 });
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
    this.#wss.handleUpgrade(request, socket, head, (ws) => {
      const call = new VoiceCall(ws, request, this.#options);
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
   * Not used when `onCall` is given (calls are then handed to it and never queued).
   */
  async *calls(): AsyncGenerator<VoiceCall, void, undefined> {
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
    const closed = new Promise<void>((resolve) => this.#wss.close(() => resolve()));
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

export interface VoiceStreamServerOptions extends VoiceStreamOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1; use 0.0.0.0 to accept the service from outside the host. */
  host?: string;
}

export interface VoiceStreamServer {
  /** `ws://host:port/path`, for the registration's voiceStreamUrl. */
  url: string;
  port: number;
  server: Server;
  receiver: VoiceStreamReceiver;
  calls(): AsyncGenerator<VoiceCall, void, undefined>;
  close(): Promise<void>;
}

/** A stand-alone HTTP server that only accepts voice streams. */
export async function createVoiceStreamServer(options: VoiceStreamServerOptions = {}): Promise<VoiceStreamServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
    res.end('WebSocket upgrade required');
  });
  const receiver = new VoiceStreamReceiver(options).attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
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
