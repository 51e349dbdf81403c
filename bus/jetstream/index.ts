export { openJetStreamBus } from './jetstream-bus.js';
export { startEmbeddedNats } from './embedded.js';
export { restoreJetStream } from './jetstream-bus.js';
