"""The live lab over Socket.IO.

The events, each client's runs, the run cache, and the bounds on one connection.
"""
