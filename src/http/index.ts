// The HTTP client's public surface.
export { PortalClient, type AuthConfig, type CallOptions, type FetchResult, type HttpOptions, type Validators } from './client.js';
export { HttpError, LimitError, NetworkError, ResponseError, type NetworkFailure } from './errors.js';
export { redact } from './redact.js';
export { backoffMs, isRetryableStatus, parseRetryAfter } from './retry.js';
