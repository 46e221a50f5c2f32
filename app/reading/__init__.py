"""Readers of what real systems print: NCCL_DEBUG=INFO logs, nccl-tests' tables."""
