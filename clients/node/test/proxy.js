// A TCP proxy in front of a test server, so that a test can drop a client's connection (its
// calls end UNAVAILABLE) without stopping the server, hold back what the server says (an
// answer sent, never received), or point the same address at a restarted server.
import net from 'node:net';

function hostPort(target) {
  const i = target.lastIndexOf(':');
  return [target.slice(0, i).replace(/^\[|\]$/g, ''), Number(target.slice(i + 1))];
}

/** Resolves to { target, hold(), drop(), retarget(target), connections(), close() }. */
export async function startProxy(target) {
  let upstream = target;
  let opened = 0;
  const pairs = new Set();
  const server = net.createServer((down) => {
    opened++;
    const [host, port] = hostPort(upstream);
    const up = net.connect(port, host);
    const pair = { down, up, held: false };
    pairs.add(pair);
    down.on('data', (d) => up.write(d));
    up.on('data', (d) => pair.held || down.write(d)); // held: lost, as on a dead link
    const kill = () => {
      pairs.delete(pair);
      down.destroy();
      up.destroy();
    };
    for (const s of [down, up]) {
      s.on('error', kill);
      s.on('close', kill);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    target: `127.0.0.1:${server.address().port}`,
    /** The connections open now go dead one way: what the server sends on them is lost (new
     *  connections work). */
    hold: () => {
      for (const pair of pairs) pair.held = true;
    },
    /** Cut every connection (the client sees UNAVAILABLE). */
    drop: () => {
      for (const { down, up } of [...pairs]) {
        down.destroy();
        up.destroy();
      }
      pairs.clear();
    },
    /** New connections go to `target` from now on. */
    retarget: (t) => {
      upstream = t;
    },
    /** How many connections the proxy has accepted so far. */
    connections: () => opened,
    close: () =>
      new Promise((resolve) => {
        for (const { down, up } of pairs) {
          down.destroy();
          up.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
