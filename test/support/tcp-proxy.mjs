// A TCP proxy as a process of its own, between the service and PostgreSQL: stopping it (SIGSTOP) plays a database
// that hangs (a network partition, a stalled disk) without touching the shared server. Prints {"port":n} once listening.
// Usage: node tcp-proxy.mjs <target host> <target port>
import net from "node:net";

const [host, port] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(Number(port), host);
  client.pipe(upstream);
  upstream.pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", close).on("close", close);
  upstream.on("error", close).on("close", close);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
