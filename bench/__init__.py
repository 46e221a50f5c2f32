"""Benchmarks: each prints ratios measured in one run, because the machines are noisy."""
