"""What one client may cost.

Who it is (its address key), rate limits, and the admission of simulation runs.
"""
