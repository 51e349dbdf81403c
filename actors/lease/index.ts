export {
  acquireLease,
  decodeLease,
  encodeLease,
  leaseLive,
  readLease,
  releaseLease,
  renewLease,
  type AcquireOptions,
  type AcquireResult,
  type Held,
  type LeaseIdentity,
} from './lease.js';
export { fenceOf, leaseHeaders, LeaseFencedError, noFence, type Fence } from './fence.js';
export { answerHolder, holderGoneOver } from './holder.js';
