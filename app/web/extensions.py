"""Flask extensions, created once at import and bound to an app in the factory."""

from flask_socketio import SocketIO

socketio = SocketIO()
