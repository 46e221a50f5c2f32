"""The /measure page's Socket.IO events (namespace `/measure`): measure this machine, live.

`measure_start {backend, collective, ranks, min_bytes, max_bytes, factor, iters, warmup,
preset?}` is acked `{ok, warnings, sizes}` or `{ok: false, error}` naming the field and its
range; a background task runs `app.measure.sweep` and emits `measure_row` per size, then
`measure_done {result, fit, fit_error, curves}` or `measure_error {error}`. `measure_cancel`
stops the caller's own run; a disconnect stops it too. One measurement at a time per server:
the ranks take every core, so two at once would measure each other. `measure_save` keeps the
caller's last fit as the preset "this machine" (app/measure/preset.py, as `--save-preset`).

A namespace of its own so its `disconnect` and catch-all handlers do not replace the lab's
(app/web/live/sockets.py explains why handlers are bound to the app's own server). With the
setting MEASURE_ENABLED false (a public server) every connection to it is refused with
`DISABLED`, which the page shows too.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import socketio
from flask import Flask

from app.costs.hardware import HARDWARE, add_measured
from app.i18n import N_
from app.i18n.catalog import translate_text
from app.i18n.errors import translate_error
from app.measure.backends import missing
from app.measure.config import BACKENDS, MeasureConfig, cores
from app.measure.fit import FitError, fit_result
from app.measure.preset import PRESET_KEY, save_preset
from app.measure.sizes import sweep_sizes
from app.measure.sweep import BackendUnavailable, sweep, warnings_for

from . import language
from .bad_input import caught_event
from .measure_model import curve_of_fit, curve_of_preset, fit_of
from .socket_json import UNDECODABLE

NAMESPACE = "/measure"
EVENTS = ("measure_start", "measure_cancel", "measure_save")
FIELDS = ("backend", "collective", "ranks", "min_bytes", "max_bytes", "factor", "iters", "warmup")
OPTIONAL = ("preset",)
# The page's bounds, tighter than the CLI's: a classroom server must not be held for long.
MAX_WEB_BYTES = 64 << 20
MAX_WEB_ITERS = 1000
TIME_LIMIT_S = 120.0  # MeasureConfig's limit: the ranks are killed then
OVERSUBSCRIBE_TIMES = 4  # ranks up to 4x the cores, with the oversubscription warning
DISABLED = N_(
    "measuring is turned off on this server (setting MEASURE_ENABLED): a measurement runs its "
    "ranks on every core of the server, so public and class servers turn it off. To turn it "
    "on, start the server without --no-measure and with COLLECTIVE_LAB_MEASURE_ENABLED unset "
    "or true, as `make run` does on your own machine."
)

log = logging.getLogger(__name__)


def max_ranks() -> int:
    """Return the most ranks the page accepts: a few per core (each extra one is warned of)."""
    return min(64, OVERSUBSCRIBE_TIMES * cores())


def enabled(app: Flask) -> bool:
    """Return whether `app` offers measuring (the setting MEASURE_ENABLED)."""
    return app.config.get("MEASURE_ENABLED", True) is True


def init_app(app: Flask, server: socketio.Server) -> None:
    """Bind the measure events to `server`, the Socket.IO server of `app`."""
    handlers = _Handlers(app, server)
    app.extensions["measure"] = handlers
    server.on("connect", handlers.connect, namespace=NAMESPACE)
    for event in EVENTS:
        server.on(event, getattr(handlers, event.removeprefix("measure_")), namespace=NAMESPACE)
    server.on("disconnect", handlers.disconnect, namespace=NAMESPACE)
    server.on(UNDECODABLE, handlers.undecodable, namespace=NAMESPACE)
    server.on("*", handlers.unknown, namespace=NAMESPACE)


class _Running:
    """The one measurement running: whose it is, the language its results are said in, and its
    cancel flag."""

    def __init__(self, sid: str, lang: str) -> None:
        self.sid = sid
        self.lang = lang
        self.cancel = threading.Event()


def _single(args: tuple) -> object:
    return args[0] if len(args) == 1 else None if not args else list(args)


def _whole(field: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{field}: {str(value)[:40]!r} is not a whole number in {low}..{high}")
    return value


def parse_start(payload: object, time_limit_s: float) -> tuple[MeasureConfig, str | None]:
    """Return (config, preset) from a measure_start payload; ValueError names the field."""
    if not isinstance(payload, dict):
        raise ValueError(f"parameters: send one JSON object with {', '.join(FIELDS)}")
    extra = sorted(str(k)[:40] for k in payload if k not in FIELDS + OPTIONAL)
    if extra:
        raise ValueError(f"{extra[0]}: not a field; the fields are {', '.join(FIELDS + OPTIONAL)}")
    absent = [f for f in FIELDS if f not in payload]
    if absent:
        raise ValueError(f"{absent[0]}: missing; the fields are {', '.join(FIELDS)}")
    backend = payload["backend"]
    if backend not in BACKENDS:
        raise ValueError(f"backend: {str(backend)[:40]!r} is not one of {', '.join(BACKENDS)}")
    _whole("ranks", payload["ranks"], 1, max_ranks())
    _whole("max_bytes", payload["max_bytes"], 1, MAX_WEB_BYTES)
    _whole("min_bytes", payload["min_bytes"], 1, MAX_WEB_BYTES)
    _whole("iters", payload["iters"], 1, MAX_WEB_ITERS)
    preset = payload.get("preset")
    if preset not in (None, "") and preset not in HARDWARE:
        raise ValueError(f"preset: {str(preset)[:40]!r} is not one of {', '.join(HARDWARE)}")
    config = MeasureConfig(
        **{f: payload[f] for f in FIELDS},
        oversubscribe=True,  # the page warns instead (sweep.warnings_for)
        time_limit_s=time_limit_s,
    )
    return config, preset or None


class _Handlers:
    """Validate, start, cancel and save; one measurement per server."""

    def __init__(self, app: Flask, server: socketio.Server) -> None:
        self.app = app
        self.server = server
        self.lock = threading.Lock()
        self.running: _Running | None = None
        self.results: dict[str, dict] = {}  # each client's last finished result, to save

    def connect(self, sid: str, environ: dict, auth: object = None) -> None:
        """Refuse the connection, saying why and how to turn it on, when measuring is off."""
        if not enabled(self.app):
            raise socketio.exceptions.ConnectionRefusedError(DISABLED)
        language.check(sid, environ, auth)  # a `lang` the app does not speak is refused

    def start(self, sid: str, *args) -> dict:
        """Validate the parameters and start the measurement, unless one is running."""
        payload = _single(args)
        lang = language.of(self.server, sid, NAMESPACE)
        backend = payload.get("backend") if isinstance(payload, dict) else None
        if backend in BACKENDS and missing(backend):
            return {"ok": False, "error": f"backend {backend}: {missing(backend)}"}
        try:
            config, preset = parse_start(
                payload, self.app.config.get("MEASURE_TIME_LIMIT_S", TIME_LIMIT_S)
            )
        except ValueError as error:
            return {"ok": False, "error": translate_error(lang, str(error)[:500])}
        with self.lock:
            if self.running is not None:
                busy = N_(
                    "a measurement is already running on this server (one at a time, or they "
                    "would measure each other): try again when it ends"
                )
                return {"ok": False, "error": translate_text(lang, busy)}
            self.running = _Running(sid, lang)
            running = self.running
        self.server.start_background_task(self._run, running, config, preset)
        sizes = sweep_sizes(config.min_bytes, config.max_bytes, config.factor)
        warnings = [translate_text(lang, warning) for warning in warnings_for(config)]
        return {"ok": True, "warnings": warnings, "sizes": sizes}

    def _run(self, running: _Running, config: MeasureConfig, preset: str | None) -> None:
        sid = running.sid
        try:
            result = sweep(
                config,
                on_row=lambda row: self.server.emit(
                    "measure_row", row, to=sid, namespace=NAMESPACE
                ),
                cancelled=running.cancel.is_set,
            )
            done = self._done(sid, result, preset, running.lang)
            self.server.emit("measure_done", done, to=sid, namespace=NAMESPACE)
        except BackendUnavailable as error:
            error = translate_error(running.lang, str(error))
            self.server.emit("measure_error", {"error": error}, to=sid, namespace=NAMESPACE)
        except Exception:
            log.exception("measurement failed")
            error = N_("the measurement failed on the server (its log says why)")
            error = translate_text(running.lang, error)
            self.server.emit("measure_error", {"error": error}, to=sid, namespace=NAMESPACE)
        finally:
            with self.lock:
                self.running = None

    def _done(self, sid: str, result: dict, preset: str | None, lang: str) -> dict:
        """Return measure_done's payload: the result, its fit and the model's curves, their
        words in `lang`."""
        sizes = [row["size"] for row in result["rows"]]
        curves = []
        fit, fit_error = fit_of(result, lang)
        if fit is not None:
            self.results[sid] = result
            curves.append(curve_of_fit(fit, result, sizes, lang))
        if preset:
            curves.append(curve_of_preset(preset, result, sizes, lang))
        return {"result": result, "fit": fit, "fit_error": fit_error, "curves": curves}

    def cancel(self, sid: str, *args) -> dict:
        """Stop the caller's own measurement (only its starter may)."""
        running = self.running
        if running is None or running.sid != sid:
            return {"ok": False, "error": "run: no measurement of yours is running"}
        running.cancel.set()
        return {"ok": True}

    def save(self, sid: str, *args) -> dict:
        """Keep the caller's last fit as the preset "this machine", for every calculator."""
        result = self.results.get(sid)
        if result is None:
            return {"ok": False, "error": "fit: measure first; there is no fit of yours to save"}
        try:
            fit = fit_result(result)
        except FitError as error:
            return {"ok": False, "error": f"fit: {error}"}
        path = save_preset(fit, result, Path(self.app.instance_path))
        add_measured(path)  # the calculators offer it from now on
        return {"ok": True, "key": PRESET_KEY, "label": HARDWARE[PRESET_KEY].label}

    def undecodable(self, sid: str, *args) -> dict:
        return {
            "ok": False,
            "error": "parameters: the message could not be decoded; send a JSON object",
        }

    def unknown(self, *args) -> dict:
        name, _ = caught_event(self.server, NAMESPACE, args)
        return {"ok": False, "error": f"unknown event {name!r}; known events: {', '.join(EVENTS)}"}

    def disconnect(self, sid: str, reason: str | None = None) -> None:
        """Stop the measurement of a client that went away, and forget its result."""
        if self.server.manager.is_connected(sid, NAMESPACE):
            return  # a client *sent* an event named "disconnect"
        running = self.running
        if running is not None and running.sid == sid:
            running.cancel.set()
        self.results.pop(sid, None)
