import { ApiPromise } from './api-promise.js';
import { type CallInput, type RouteDefinition, type Transport, toRequestSpec } from './request.js';

/** Base of every resource: a resource only declares routes and calls them. */
export abstract class APIResource {
  protected readonly transport: Transport;

  /** @internal Resources are built by {@link PartnerClient}: use `client.sims`, `client.esim` … */
  constructor(transport: Transport) {
    this.transport = transport;
  }

  protected call<T>(route: RouteDefinition<T>, input?: CallInput): ApiPromise<T> {
    return new ApiPromise(this.transport.send(toRequestSpec(route, input)));
  }
}
