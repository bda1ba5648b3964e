/**
 * The slice of a `ws` WebSocket that a voice call drives. Declared here rather than imported from
 * `ws`, so the published declaration files compile for apps that never install `ws` (an optional
 * peer dependency) or its types; a `ws` WebSocket satisfies it structurally.
 */

/** A message as `ws` delivers it with `binaryType = 'nodebuffer'` (or its other binary types). */
export type RawData = Buffer | ArrayBuffer | Buffer[];

export interface VoiceSocket {
  binaryType: 'nodebuffer' | 'arraybuffer' | 'fragments';
  readonly isPaused: boolean;
  readonly readyState: number;
  readonly OPEN: number;
  readonly CONNECTING: number;
  on(event: 'message', listener: (data: RawData, isBinary: boolean) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'close', listener: (code: number, reason: Buffer) => void): unknown;
  pause(): void;
  resume(): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
}
