"""Every setting the app reads, with its default and what it is for.

Defaults are loaded first, then environment variables prefixed `COLLECTIVE_LAB_`
(e.g. `COLLECTIVE_LAB_EMBED_FRAME_ANCESTORS="https://wiki.example.com"`), then the test config.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    name: str
    default: object
    help: str


SETTINGS = (
    Setting(
        "LAB_MAX_RANKS",
        64,
        "Largest rank count the web lab simulates: ranks must be in 1..LAB_MAX_RANKS "
        "(the engine itself allows 256).",
    ),
    Setting(
        "LAB_MAX_CELLS",
        1 << 18,
        "Bound on ranks x per-rank working-buffer length for one web simulation "
        "(262,144 values). The working buffer is `elements` long, or ranks x elements for "
        "allgather, gather and all_to_all; so at 64 ranks elements <= 4096 (allreduce) or "
        "<= 64 (allgather). It keeps one run's numpy buffers at 1 MiB of float32 and its "
        "JSON trace at a few MB.",
    ),
    Setting(
        "LAB_RUN_CACHE_BYTES",
        32 << 20,
        "Bytes of encoded payloads (JSON text) the lab keeps from recent runs (32 MiB). The "
        "engine is deterministic, so a `simulate` with the same parameters as a kept run "
        "(seed included; interval_ms aside) streams the kept payloads with its own run_id and "
        "skips the engine and serialization. Least recently used runs go first; a run over a "
        "quarter of this is not kept. 0 disables the cache.",
    ),
    Setting(
        "EMBED_FRAME_ANCESTORS",
        "*",
        "Space-separated origins allowed to frame /embed/* pages (CSP frame-ancestors). "
        "Every other page denies framing.",
    ),
    Setting(
        "SOCKETIO_CORS_ORIGINS",
        "",
        "Space-separated origins allowed to open a Socket.IO connection; empty means same origin.",
    ),
    Setting(
        "LESSONS_DIR",
        None,
        "Folder holding course.yaml, the lesson Markdown and quizzes/; unset: the repository's "
        "lessons/.",
    ),
    Setting("MAX_CONTENT_LENGTH", 256 * 1024, "Largest HTTP request body, in bytes."),
    Setting(
        "MAX_SOCKET_MESSAGE_BYTES",
        64 * 1024,
        "Largest Socket.IO message a client may send, in bytes (max_http_buffer_size). A "
        "websocket message is measured while it is read: the connection is closed (code 1009) "
        "as soon as a message passes this, so no more than about this much is ever buffered. "
        "Websocket compression (permessage-deflate) is refused, and packets announcing binary "
        "attachments are dropped: no lab event carries either.",
    ),
    Setting(
        "MAX_CONNECTIONS",
        256,
        "Most Socket.IO connections (websocket or long-polling sessions) open at once, over all "
        "clients; past it a new connection is answered 503 'server full ... retry in 5 s' "
        "(the browser's client retries by itself). Each open websocket holds three threads "
        "of the server.",
    ),
    Setting(
        "MAX_CONNECTIONS_PER_ADDRESS",
        32,
        "Most Socket.IO connections one client address (IPv6: one /64) may hold open at once, "
        "so one client cannot take every connection: a lab tab holds one, a wiki page one per "
        "embed. Past it a new connection is answered 429. Addresses in CLASS_NETWORKS are held "
        "only to MAX_CONNECTIONS. 0: no cap per address.",
    ),
    Setting(
        "SERVER_HTTP_THREADS",
        32,
        "Threads for plain HTTP requests (pages, API, static files) in `python -m app`, besides "
        "one per Socket.IO connection: the server's one worker process runs MAX_CONNECTIONS + "
        "SERVER_HTTP_THREADS request threads at most, and keeps at most twice MAX_CONNECTIONS + "
        "SERVER_HTTP_THREADS connections open; more wait in the listen queue.",
    ),
    Setting(
        "SERVER_IDLE_TIMEOUT_S",
        10,
        "Seconds `python -m app` keeps a connection that sends nothing: before its first request, "
        "between kept-alive requests, or part-way through a request. A connection that is only "
        "open holds no thread while it waits. Websockets are kept by engine.io's pings instead.",
    ),
    Setting(
        "SOCKET_PING_INTERVAL_S",
        25,
        "Seconds between engine.io's pings to each Socket.IO client.",
    ),
    Setting(
        "SOCKET_PING_TIMEOUT_S",
        20,
        "Seconds a Socket.IO client has to answer a ping; one that does not (a closed laptop, a "
        "half-open socket) is disconnected, so a connection that went silent is gone after "
        "SOCKET_PING_INTERVAL_S + SOCKET_PING_TIMEOUT_S at most.",
    ),
    Setting(
        "SHUTDOWN_GRACE_S",
        10,
        "On SIGTERM, `python -m app` stops accepting connections and lets running simulations "
        "finish for up to this many seconds; runs still going then end with sim_error 'server "
        "shutting down'. Ctrl-C (SIGINT) ends them at once the same way. Then it exits with 0.",
    ),
    Setting(
        "MAX_ACTIVE_RUNS",
        256,
        "Most lab simulations under way at once (Socket.IO streams and POST /api/simulate), "
        "over all clients; past it the answer is 'server busy, retry in 2 s' (HTTP 503).",
    ),
    Setting(
        "LAB_RUNS_PER_ADDRESS",
        4,
        "Most simulations one client address (IPv6: one /64) may have under way at once, "
        "streams and HTTP together; a connection runs one at a time, so this also bounds how "
        "many connections of one address can hold runs. Past it: 'too many simulations from "
        "your address' (HTTP 429).",
    ),
    Setting(
        "LAB_RUNS_PER_CLASS_ADDRESS",
        200,
        "The same cap for an address in CLASS_NETWORKS: a class of 200 behind one NAT address, "
        "each student running one simulation.",
    ),
    Setting(
        "LAB_MEMORY_BUDGET_MB",
        256,
        "Memory the lab's simulations may hold at once, in MB, on top of the server's idle "
        "size. Each run reserves an upper bound of its peak (app/web/guard/admission.py: about "
        "23 MB for the largest stream, 77 MB for the largest HTTP document), and a stream keeps "
        "only twice its encoded payloads once encoded; a run that does not fit is answered "
        "'server busy: N simulations use X MB of the Y MB memory budget' (HTTP 503). Runs of "
        "more than LAB_SMALL_RUN_RANKS ranks leave an eighth of it to smaller runs. 0: no budget.",
    ),
    Setting(
        "LAB_MAX_RUN_S",
        120,
        "Longest a paced stream may last, in seconds: a run whose interval_ms times its steps "
        "would take longer ends at once with sim_error 'interval_ms must be at most N for this "
        "run'. The lab itself streams with interval_ms 0.",
    ),
    Setting(
        "LAB_SMALL_RUN_RANKS",
        16,
        "Simulations of at most this many ranks are small: they compute in a lane of their own, "
        "which large ones never occupy. The engine's and the encoder's work grows with ranks "
        "squared and hardly with elements (8 ranks: about 8 ms; 64 ranks: 0.3-0.8 s).",
    ),
    Setting(
        "LAB_LARGE_RUNS_AT_ONCE",
        2,
        "Large simulations (more than LAB_SMALL_RUN_RANKS ranks) that run the engine and encode "
        "their payloads at once; the rest wait their turn. The work holds Python's GIL, so more "
        "than a couple only slows every run down.",
    ),
    Setting(
        "LAB_SEND_QUEUE_BYTES",
        1 << 20,
        "Bytes of events that may wait to be sent to one Socket.IO client (1 MiB); a stream "
        "pauses while more wait, so a slow or stalled client cannot make the server hold a "
        "whole run, or many, for it. The largest single event, sim_start at 64 ranks, is "
        "about 0.3 MB.",
    ),
    Setting(
        "LAB_SEND_STALL_S",
        15.0,
        "A client that takes none of its waiting events for this many seconds loses its run: "
        "sim_error 'your connection is not keeping up: run cancelled'. One that then asks for "
        "another run with twice LAB_SEND_QUEUE_BYTES still waiting is disconnected.",
    ),
    Setting(
        "SIMULATE_RATE_PER_S",
        5.0,
        "Sustained `simulate` requests per second per connection (a token bucket).",
    ),
    Setting("SIMULATE_BURST", 20, "`simulate` requests a connection may send at once."),
    Setting(
        "API_RATE_PER_S",
        200.0,
        "Work units per second a client address may spend on HTTP requests, sustained (IPv6: "
        "per /64). A page, an API call or a calculator answer costs 1 unit, /embed/calc/* 2, "
        "/calculators 9, POST /api/simulate 1 + cells/1024 (257 for the largest run); static "
        "files are free. "
        "200/s is a class of 200 behind one NAT address, each student sending about one "
        "calculator request a second (app/web/guard/limits.py has the arithmetic); past the budget "
        "requests get 429 with Retry-After.",
    ),
    Setting(
        "API_BURST",
        2000,
        "Work units a client address may spend at once: the whole class of 200 dragging a "
        "slider together (5 requests each: the calculators' 200 ms debounce allows 5 a second) "
        "is 1,000, opening /calculators together 1,800.",
    ),
    Setting(
        "CLASS_NETWORKS",
        "",
        "CIDR networks, separated by spaces or commas (e.g. '192.0.2.0/24 2001:db8::/48'), "
        "whose addresses get CLASS_RATE_PER_S and CLASS_BURST instead: a school's NAT address "
        "with several classes behind it. Empty: none. A malformed entry stops the app at "
        "startup, naming it. Behind a reverse proxy every request has the proxy's address: "
        "list the proxy here, or limit at the proxy.",
    ),
    Setting(
        "CLASS_RATE_PER_S",
        1000.0,
        "Work units per second for an address in CLASS_NETWORKS: 200 students each sending the "
        "5 calculator requests a second the debounce allows, all at once.",
    ),
    Setting("CLASS_BURST", 10000, "Work units an address in CLASS_NETWORKS may spend at once."),
    Setting(
        "BAD_INPUT_LOG_INTERVAL_S",
        10.0,
        "Bad input from a client (a malformed Socket.IO or engine.io packet, an unknown or "
        "undecodable event, a malformed websocket handshake) is logged as one WARNING line, "
        "without a traceback, at most once per client address per this many seconds; the next "
        "line says how many were left out.",
    ),
    Setting(
        "STATIC_MAX_AGE_S",
        3600,
        "Cache lifetime of /static/ files; vendored libraries, whose names carry their "
        "version, are cached for a year.",
    ),
    Setting(
        "SECRET_KEY",
        None,
        "Key that signs quiz questions (the numbers drawn for numeric and predict questions, "
        "and option ids) so answers are graded on the server without trusting the browser. "
        "Unset, the first server to start makes a random key and keeps it in the instance "
        "folder (INSTANCE_PATH/secret_key, readable by its owner only); every restart and every "
        "other process with that folder reuses it, so open questions and mock interviews stay "
        "gradable. Set it (COLLECTIVE_LAB_SECRET_KEY, a long random string) when processes do "
        "not share a folder, e.g. on several machines.",
    ),
    Setting(
        "MESSAGE_QUEUE",
        None,
        "Redis URL (redis://host:port/db) that makes several server processes one app: "
        "Socket.IO's message queue carries room broadcasts between them, and classroom rooms, "
        "members and poll answers live there, so any process can serve any member. Unset: one "
        "process, state in memory. Set SECRET_KEY too when the processes do not share an "
        "instance folder. `python -m app --message-queue URL` sets it.",
    ),
    Setting(
        "CLASS_MAX_MEMBERS",
        500,
        "Most members (students and teacher devices) one classroom room holds; a join past it "
        "is refused with the cap named.",
    ),
    Setting(
        "CLASS_IDLE_EXPIRE_S",
        4 * 3600,
        "Seconds a classroom room lives after its last event (4 hours); then its code is free "
        "again and a late join is told the room does not exist.",
    ),
    Setting(
        "CLASS_DRIVE_RATE_PER_S",
        30.0,
        "A classroom teacher's events (room_drive, poll_open, poll_reveal, room_end) per second "
        "per connection, sustained: dragging the step scrubber sends a drive per step shown.",
    ),
    Setting("CLASS_DRIVE_BURST", 60, "A teacher's events one connection may send at once."),
    Setting(
        "CLASS_ANSWER_RATE_PER_S",
        4.0,
        "poll_answer events per second per connection, sustained (a student changing their "
        "mind); room_join and room_leave have a bucket of the same size of their own.",
    ),
    Setting("CLASS_ANSWER_BURST", 8, "poll_answer events one connection may send at once."),
    Setting(
        "CLASS_CREATE_RATE_PER_S",
        0.1,
        "Classroom rooms one client address (IPv6: one /64) may create per second, sustained: "
        "one every 10 s after the burst.",
    ),
    Setting("CLASS_CREATE_BURST", 10, "Rooms one client address may create at once."),
    Setting(
        "MEASURE_ENABLED",
        True,
        "The /measure page and its Socket.IO namespace /measure, which run real collectives "
        "across processes on the server's own cores (docs/measure.md): one measurement at a "
        "time takes every core for up to two minutes. On for `make run` on your own machine; "
        "turn it off on a public or class server with COLLECTIVE_LAB_MEASURE_ENABLED=false or "
        "`python -m app --no-measure`. Off, the page says so and how to turn it on, and the "
        "namespace refuses every connection with that sentence. /nccl-log and /nccl-tests, "
        "which only read text, stay on.",
    ),
    Setting(
        "INSTANCE_PATH",
        None,
        "Folder for what the server makes and keeps (the generated secret key); unset: Flask's "
        "instance folder, ./instance in the repository (git ignores it).",
    ),
)


def defaults() -> dict:
    """Return the default value of every setting."""
    return {s.name: s.default for s in SETTINGS}


def problems(values: dict) -> list[str]:
    """Name each setting in `values` that the app could not start with, and what it must be.

    A number must be a non-negative number (an environment value is read as JSON, so
    `COLLECTIVE_LAB_CLASS_MAX_MEMBERS=abc` stays the text "abc"); CLASS_NETWORKS must parse.
    Checked before the server starts, so a typo is one line, not a worker's traceback.
    """
    from .guard.clients import parse_networks

    found = []
    for setting in SETTINGS:
        value = values.get(setting.name, setting.default)
        if isinstance(setting.default, bool):
            if not isinstance(value, bool):
                found.append(f"{setting.name} must be true or false, got {value!r:.60}")
        elif isinstance(setting.default, int | float):
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                found.append(f"{setting.name} must be a number >= 0, got {value!r:.60}")
    try:
        parse_networks(values.get("CLASS_NETWORKS", ""))
    except ValueError as e:
        found.append(str(e))
    return found
