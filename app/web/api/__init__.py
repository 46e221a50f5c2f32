"""The JSON API under /api/.

The engine (catalog, simulate), the cost model and calculators, the quiz.
"""
