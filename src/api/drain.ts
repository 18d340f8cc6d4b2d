import type { Server, ServerResponse } from "node:http";

/**
 * Counts the requests being answered, and at a stop keeps kept-alive connections from holding the server open:
 * Fastify's close stops listening, closes the idle connections and answers new requests on busy ones with 503,
 * but a connection whose answer is still being worked on would otherwise stay open (idle) for the keep-alive
 * timeout after that answer. From `closing` on, each such connection is closed once its answer is sent.
 */
export function trackRequests(server: Server) {
  const open = new Set<ServerResponse>();
  let closing = false;
  server.on("request", (_request, response: ServerResponse) => {
    open.add(response);
    response.once("close", () => {
      open.delete(response);
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  return {
    underWay: () => open.size,
    closing() {
      closing = true;
      for (const response of open) if (!response.headersSent) response.setHeader("connection", "close");
    },
  };
}
