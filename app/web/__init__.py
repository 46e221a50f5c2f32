"""The web layer: Flask blueprints and Socket.IO handlers. Validate, call down, serialize."""
