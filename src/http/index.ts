// The HTTP client's public surface.
export { PortalClient, type HttpOptions } from './client.js';
export { redact } from './redact.js';
