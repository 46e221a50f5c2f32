"""The shape of one algorithm's cost, per byte of message, and the registry of algorithms.

Every (collective, algorithm) of the engine's catalog registers a function that, given p (and
ranks per node or a segment count where they apply), returns its `Terms`: the phases with their
step counts (alpha terms) and the bytes on the critical path (beta) and reduced on it (gamma),
all per byte of M, plus what each rank sends. Linear in M, so one `Terms` serves every size.

Time rule (REFERENCE § 1, single-port full duplex): a step lasts alpha plus its largest
message times beta, so the beta coefficient is the sum over steps of the largest message.
For the ring and butterfly algorithms that equals what every rank sends; for trees it is the
per-step alpha + M·beta that REFERENCE § 2 charges binomial trees. `direct` is all-port, but a
rank's port still carries everything it sends or receives in its one step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.collectives import COLLECTIVES as ENGINE_COLLECTIVES

INTER = "inter"  # the main link: the one `latency_us` / `bandwidth_gbs` describe
INTRA = "intra"  # the intra-node link of hierarchical algorithms
DIRECT_SOURCE = "REFERENCE § 1 (direct: all-port, one step)"


@dataclass(frozen=True)
class Phase:
    """A part of an algorithm that runs on one link class."""

    name: str
    link: str  # INTER or INTRA
    steps: int  # alpha terms
    beta_units: float  # bytes on the critical path, per byte of M
    gamma_units: float  # bytes reduced on the critical path, per byte of M


@dataclass(frozen=True)
class Terms:
    """An algorithm's cost per byte of M at one rank count."""

    phases: tuple[Phase, ...]
    bytes_per_rank: tuple[float, ...]  # bytes each rank sends, per byte of M
    formula: str  # symbolic time, in alpha, beta, gamma, M, p
    source: str  # where the formula comes from

    @property
    def steps(self) -> int:
        """Return the total count of alpha terms."""
        return sum(phase.steps for phase in self.phases)


@dataclass(frozen=True)
class Algorithm:
    """One registered cost function and what it needs."""

    collective: str
    name: str
    terms: Callable[..., Terms]
    needs_ranks_per_node: bool = False
    segments: str = ""  # what `segments` means for this algorithm; "" if it takes none
    default_segments: Callable[[int], int] = lambda ranks: ranks  # when `segments` is None
    # A step lasts its busiest port (all one rank sends or receives in it), not its largest
    # message: for algorithms that talk to several peers at once through one port, as `direct`.
    busiest_port: bool = False


ALGORITHMS: dict[tuple[str, str], Algorithm] = {}

COLLECTIVES = tuple(ENGINE_COLLECTIVES)  # the engine's, in the catalog's order


def register(
    collective: str,
    name: str,
    *,
    needs_ranks_per_node: bool = False,
    segments: str = "",
    default_segments: Callable[[int], int] = lambda ranks: ranks,
    busiest_port: bool = False,
) -> Callable[[Callable[..., Terms]], Callable[..., Terms]]:
    """Register the decorated function as the cost terms of `collective`/`name`."""

    def wrap(function: Callable[..., Terms]) -> Callable[..., Terms]:
        key = (collective, name)
        if key in ALGORITHMS:
            raise RuntimeError(f"{collective}/{name} registered twice")
        ALGORITHMS[key] = Algorithm(
            collective,
            name,
            function,
            needs_ranks_per_node,
            segments,
            default_segments,
            busiest_port,
        )
        return function

    return wrap


def uniform(p: int, units: float) -> tuple[float, ...]:
    """Return the same per-rank byte count for all p ranks."""
    return (units,) * p


def one_phase(
    name: str,
    steps: int,
    beta: float,
    gamma: float,
    per_rank: tuple[float, ...],
    formula: str,
    source: str,
) -> Terms:
    """Build the Terms of an algorithm that is one phase on the main link."""
    return Terms((Phase(name, INTER, steps, beta, gamma),), per_rank, formula, source)


def all_port_step(
    name: str, p: int, beta: float, gamma: float, per_rank: tuple[float, ...], formula: str
) -> Terms:
    """Build the Terms of a `direct` algorithm: one all-port step, none when p is 1."""
    return one_phase(
        name,
        1 if p > 1 else 0,
        beta,
        gamma,
        per_rank,
        formula,
        "REFERENCE § 1 (direct: all-port, one step)",
    )
