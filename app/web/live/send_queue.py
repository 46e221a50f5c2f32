"""How much each Socket.IO connection has waiting to be sent, so a stream can wait for its reader.

engine.io keeps every packet for a client in that connection's queue until the transport takes
it: the websocket's writer thread, or the client's next polling GET. A client that stops
reading (a stalled network, or a script that never reads and answers pings blindly) leaves
every event the server sends in that queue, and nothing bounded it: one such connection took
the server from 360 to 1067 MB in a minute. `install` makes every new connection's queue count
the bytes it holds, so that `pending_bytes` can tell a run's stream how far behind its client
is (app/web/live/sockets.py waits while it is over `LAB_SEND_QUEUE_BYTES`, and ends the run when the
client takes nothing for `LAB_SEND_STALL_S`), and `drop` can close a connection that is too far
behind without waiting for a reader that never comes.
"""

from __future__ import annotations

import functools

import socketio

NAMESPACE = "/"


class CountingQueue:
    """Mix-in for engine.io's queue class: keep `pending_bytes`, the text of queued packets.

    `_put` and `_get` are the hooks `queue.Queue` (and gevent's and eventlet's queues) call
    under their own lock for every item, so the count is exact without a lock of its own.
    """

    pending_bytes = 0

    def _put(self, item) -> None:
        self.pending_bytes += _size(item)
        super()._put(item)

    def _get(self):
        item = super()._get()
        self.pending_bytes -= _size(item)
        return item


def _size(item) -> int:
    """Return the bytes an engine.io packet's payload holds (0 for the queue's None marker)."""
    data = getattr(item, "data", None)
    return len(data) if isinstance(data, str | bytes) else 0


@functools.cache
def _counting(base: type) -> type:
    """Return a subclass of engine.io's queue class `base` that counts its pending bytes."""
    return type(f"Counting{base.__name__}", (CountingQueue, base), {})


def install(server: socketio.Server) -> None:
    """Make every connection `server` accepts from now on count the bytes waiting for it."""
    eio = server.eio
    base = eio._async["queue"]  # the async mode's queue class (queue.Queue for threading)
    if not (hasattr(base, "_put") and hasattr(base, "_get")):
        return  # a queue without these hooks: leave it alone, and pending_bytes reads 0
    cls = _counting(base)
    eio.create_queue = lambda *args, **kwargs: cls(*args, **kwargs)


def emit_to(server: socketio.Server, sid: str, event: str, payload) -> None:
    """Emit `event` to client `sid` of this process, straight into its connection's queue.

    With a message queue (several processes, Redis), python-socketio publishes every emit for
    the other processes to look for the sid, decoding and encoding the payload on the way: each
    step of each lab run was a Redis publish that every process read. A stream's client is
    connected to the process that runs the stream, so its events skip the queue.
    """
    server.emit(event, payload, to=sid, namespace=NAMESPACE, ignore_queue=True)


def _socket(server: socketio.Server, sid: str):
    """Return the engine.io socket of Socket.IO client `sid`, or None (gone, or a test client)."""
    eio_sid = server.manager.eio_sid_from_sid(sid, NAMESPACE)
    return server.eio.sockets.get(eio_sid) if eio_sid is not None else None


def pending_bytes(server: socketio.Server, sid: str) -> int:
    """Return how many bytes of packets are waiting to be sent to client `sid`."""
    queue = getattr(_socket(server, sid), "queue", None)
    return getattr(queue, "pending_bytes", 0)


def drop(server: socketio.Server, sid: str) -> bool:
    """Close client `sid`'s connection now and free what waits for it; say if there was one.

    `server.disconnect` would queue a close packet and wait for the writer to send it, which a
    client that reads nothing makes wait forever. Closing the engine.io socket with `abort`
    tells Socket.IO the client is gone (so its run is cancelled) without waiting, and the
    queue is emptied so its packets are freed at once.
    """
    sock = _socket(server, sid)
    if sock is None:
        return False
    sock.close(wait=False, abort=True, reason=server.reason.SERVER_DISCONNECT)
    queue = sock.queue
    empty = server.eio.get_queue_empty_exception()
    while True:
        try:
            queue.get_nowait()
        except empty:
            break
        queue.task_done()
    queue.put(None)  # the writer (or a poll) still waiting wakes up and ends
    return True
