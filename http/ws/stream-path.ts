/** Where the stream socket is served: the route its lines name (the hub and the socket both log it). */
export const STREAM_PATH = '/ws/stream';
