/**
 * What leads every room about the node itself: its bus out of reach, its configuration posture. One polite
 * `role="status"` region, always in the page: a live region added with its words is often not announced.
 */
import { PostureNotice } from './posture.js';
import { BusUnreachable } from './unlinked.js';

export function NodeNotices() {
  return (
    <div role="status">
      <BusUnreachable />
      <PostureNotice />
    </div>
  );
}
