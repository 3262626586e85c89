/**
 * One etcd Watch call (a bidirectional stream) over a member's HTTP/2 connection, with the events of the
 * `RawWatchStream` that watch-stream.ts drives: WatchRequests written as gRPC message frames; 'data' for
 * each WatchResponse, decoded (a message may span DATA frames and a frame may hold several messages);
 * 'error' with etcd3's typed error when the call ends with any other status than OK or its connection fails;
 * 'end' when etcd ends it with OK; 'close' after either, or after `cancel()`.
 */
import { EventEmitter } from 'node:events';
import http2 from 'node:http2';
import type { RawWatchRequest } from '../proto.js';
import type { RawWatchStream } from '../etcd-connection.js';
import { ProtobufDecodeError, decodeMessage, watchResponse } from './decode.js';
import { grpcFrame, watchRequestSpec } from './encode.js';
import type { OpenStream } from './member-channel.js';
import { Status, grpcError } from './status.js';

export class WatchCall extends EventEmitter implements RawWatchStream {
  /** Bytes received and not yet parsed into messages. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private done = false;

  constructor(private readonly call: OpenStream) {
    super();
    const { stream } = call;
    stream.on('data', (chunk: Buffer) => this.receive(chunk));
    // The member's trailers end the call though our side is still open: close the stream then.
    stream.on('end', () => {
      this.finish(call.outcome());
      stream.close();
    });
    stream.on('close', () => this.finish(call.outcome()));
  }

  write(message: unknown): boolean {
    if (this.done) return false;
    return this.call.stream.write(grpcFrame(watchRequestSpec, message as RawWatchRequest));
  }

  end(): void {
    if (!this.done) this.call.stream.end();
  }

  /** Ends the call from our side: no 'error' or 'end' follows, only 'close'. */
  cancel(): void {
    if (this.done) return;
    this.done = true;
    this.pending = [];
    this.call.stream.close(http2.constants.NGHTTP2_CANCEL);
    this.emit('close');
  }

  private receive(chunk: Buffer): void {
    if (this.done) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    while (this.pendingBytes >= 5) {
      const head = this.pending[0]!.length >= 5 ? this.pending[0]! : Buffer.concat(this.pending);
      const length = head.readUInt32BE(1);
      if (this.pendingBytes < 5 + length) return;
      if (head[0] !== 0) return this.fail(grpcError(Status.INTERNAL, 'compressed message received without an agreed encoding'));
      const all = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
      const rest = all.subarray(5 + length);
      this.pending = rest.length === 0 ? [] : [rest];
      this.pendingBytes = rest.length;
      let message;
      try {
        message = decodeMessage(watchResponse, all, 5, 5 + length);
      } catch (err) {
        if (!(err instanceof ProtobufDecodeError)) throw err;
        return this.fail(grpcError(Status.INTERNAL, `etcd watch answer does not decode: ${err.message}`));
      }
      this.emit('data', message);
      if (this.done) return;
    }
  }

  private fail(err: Error): void {
    this.finish(err);
    this.call.stream.close(http2.constants.NGHTTP2_CANCEL);
  }

  private finish(err: Error | undefined): void {
    if (this.done) return;
    this.done = true;
    this.pending = [];
    if (err === undefined) this.emit('end');
    else this.emit('error', err);
    this.emit('close');
  }
}
