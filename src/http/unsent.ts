// Requests handed to undici and not yet on the wire. undici lets a turn of the event loop pass
// before it reuses a keep-alive connection, and another before it writes to an idle one; a long
// task queued for the same turn delays the request by its whole length. The crawl asks `count` so
// that its own work lets these requests go first (crawl/queue.ts, Handoff).

import type { Dispatcher } from 'undici';

/** Counts each request from its dispatch until it is written to a socket, or fails before that. */
export class UnsentRequests {
  private unsent = 0;

  /** Requests dispatched and not yet written (nor failed). */
  get count(): number {
    return this.unsent;
  }

  /** For Dispatcher.compose. */
  readonly interceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
    this.unsent++;
    const watch = new SendWatch(handler, () => this.unsent--);
    try {
      return dispatch(opts, watch);
    } catch (error) {
      watch.sent();
      throw error;
    }
  };
}

/** Passes every callback on; calls `onSent` once, at the first sign that the request left or failed. */
class SendWatch implements Dispatcher.DispatchHandler {
  private pending = true;

  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly onSent: () => void,
  ) {}

  sent(): void {
    if (!this.pending) return;
    this.pending = false;
    this.onSent();
  }

  // undici calls this just before it writes the request (again, for a request it retries).
  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.sent();
    this.inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.inner.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.sent();
    this.inner.onResponseStart?.(...args);
  }

  onResponseData(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseData']>>): void {
    this.inner.onResponseData?.(...args);
  }

  onResponseEnd(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.sent();
    this.inner.onResponseEnd?.(...args);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.sent();
    this.inner.onResponseError?.(controller, error);
  }
}
