"""NCCL's PAT (Parallel Aggregated Trees) schedule, translated from its source.

Followed: NVIDIA/nccl at 5067397 (NCCL 2.30.7), src/include/collectives.h, classes
PatAGAlgorithm and PatRSAlgorithm (getNextOp), with the peers of src/device/prims_simple.h
(primsModePatAg / primsModePatRs: on dimension d, allgather receives from rank + 2^d and sends to
rank - 2^d; reduce-scatter receives from rank - 2^d and sends to rank + 2^d). PAT arrived in
NCCL 2.23.

Every rank runs the same sequence of operations, grouped into aggregated steps. An operation of
value s (0 < s < p) moves the block at offset s from the rank:

- allgather: on dimension b = lowest set bit of s, rank r sends block r + s - 2^b (its own, or
  one received on an earlier step) to rank r - 2^b, where it is the block at offset s. So each
  rank's block goes down a binomial tree whose longest hop comes first, and the p trees are
  shifted copies of one another, run in parallel;
- reduce-scatter: the mirror image. Rank r receives from rank r - 2^b the partial sum of block
  r + s - 2^b, adds its own input and sends it on to rank r + 2^c, c the lowest set bit of
  s - 2^b; partial sums of block x flow towards rank x, the shortest hops first.

Aggregation: all operations of one aggregated step go out together (postFreq). How many NCCL
aggregates depends on the bytes: it doubles the factor while a chunk holds twice the channel's
data times the factor, up to p/2 (the constructor's first loop). The engine and the cost model
take the small-message end (where NCCL picks PAT: one GPU per node, latency-bound sizes), in
which the loop runs to its cap; for p a power of two that is lg p aggregated steps, step k
sending 2^k blocks a distance p/2^(k+1): a Bruck allgather with the distances reversed.
"""

from __future__ import annotations

from functools import lru_cache

MAX_PARALLEL_FACTOR = 16  # NCCL_PAT_NWORKERS / WARP_SIZE
STEP_DEPTH = 8  # NCCL_STEPS

# One aggregated step: the (dimension, block offset) pairs every rank sends in it.
Step = tuple[tuple[int, int], ...]


def _log2_up(n: int) -> int:
    return (n - 1).bit_length()


def _first_bit(i: int, limit: int) -> int:
    return (i & -i).bit_length() - 1 if i else limit


def _mirror(i: int, top: int, invert: bool) -> int:
    """NCCL's mirror (bit-reverse of i below `top`) or mirrorInvert (of its complement)."""
    out, mask, imask = 0, 1, top // 2
    while mask < top:
        if bool(i & mask) != invert:
            out += imask
        mask, imask = mask << 1, imask >> 1
    return out


def aggregation(ranks: int) -> int:
    """Return NCCL's aggregation factor for a message far below a chunk: the first loop's cap."""
    factor = 1
    while factor < ranks // 2:
        factor *= 2
    return factor


def step_count(ranks: int) -> int:
    """Return how many aggregated steps send anything: len(pat_steps(...)) in closed form.

    ceil(lg p), and one more when NCCL's aggregation stops at a quarter of the power of two
    above p instead of half (p = 2^k + 1, k >= 2: p // 2 is then exactly a power of two). Read
    off the schedule, not derived from NCCL: the cost model prices up to 65,536 ranks, where
    playing the schedule takes seconds, and a test checks this against `pat_steps`.
    """
    if ranks < 2:
        return 0
    pow2 = 1 << _log2_up(ranks)
    short = ranks > 3 and pow2 // aggregation(ranks) > 2
    return _log2_up(ranks) + (1 if short else 0)


class _Common:
    """The state both classes share (their constructors are the same)."""

    def __init__(self, ranks: int) -> None:
        self.nranks = ranks
        self.nr_pow2 = 1 << _log2_up(ranks)
        self.agg_factor = aggregation(ranks)
        self.agg_delta = self.nr_pow2 // self.agg_factor
        self.post_freq = self.agg_factor
        self.parallel_factor = min(MAX_PARALLEL_FACTOR, self.post_freq)
        self.a = 0
        self.last_a = 0
        self.advanced = False  # the last op closed an aggregated step
        self.phase, self.scale = 0, 1

    def _reset_a(self) -> None:
        """resetA: the ops of the next aggregated step (fewer in phases 2 and 3)."""
        self.a = 0
        self.last_a = self.agg_factor
        if self.phase >= 2:
            self.last_a //= 2 * self.scale


class _AllGather(_Common):
    """PatAGAlgorithm::getNextOp, one chunk, keeping only what decides who sends what."""

    def __init__(self, ranks: int) -> None:
        super().__init__(ranks)
        self.as_dim = _log2_up(self.agg_delta)
        self.scale = self.agg_factor // 2
        self.phase = 2 if self.scale else 1
        self.v = 0
        self.bit_count = [self.as_dim - i for i in range(self.as_dim)]
        self.bit_zero_step = [1] * self.as_dim
        self.as_ = self._next_as()
        self._reset_a()

    def _next_as(self) -> int:
        for d in range(self.as_dim):
            p = 1 << d
            self.bit_count[d] -= 1
            if self.bit_count[d] == 0:
                self.v ^= p
                self.bit_count[d] = p
                if (self.v & p) == 0:
                    self.bit_count[d] += _first_bit(self.bit_zero_step[d], self.as_dim) - 1
                    if self.bit_count[d] == 0:
                        self.v ^= p
                        self.bit_count[d] = p
                    self.bit_zero_step[d] += 1
        return self.v

    def op(self) -> tuple[tuple[int, int] | None, bool]:
        """Run one getNextOp: return the (dimension, offset) sent or None, and whether done."""
        send = None
        a, n = self.a, self.nranks
        if a < self.last_a and self.phase in (1, 2):
            if self.phase == 1:
                s = a * self.agg_delta + self.as_
            else:
                s = (2 * a + 1) * self.scale * self.agg_delta
            if 0 < s < n:
                dim = _first_bit(s, self.nr_pow2)
                send = (dim, s - (1 << dim))
        self.a += 1
        done = False
        self.advanced = self.a >= self.last_a and self.a >= self.parallel_factor
        if self.advanced:
            p = self.phase
            if p == 2:
                self.scale //= 2
            if p == 2:
                self.phase = 2 if self.scale else 1
            else:
                self.phase = 0 if p == 1 and self.as_ % 2 == 1 else 1
            if p == 0 or (p == 1 and self.as_ % 2 == 0):
                self.as_ = self._next_as()
            if p == 0 and self.as_ == self.agg_delta // 2:
                done = True
            else:
                self._reset_a()
        return send, done


class _ReduceScatter(_Common):
    """PatRSAlgorithm::getNextOp, one chunk, keeping only what decides who sends what."""

    def __init__(self, ranks: int) -> None:
        super().__init__(ranks)
        self.phase, self.scale = 0, 1
        self.as_ = self.agg_delta - 1
        self._reset_a()

    def _reset_a(self) -> None:
        super()._reset_a()
        if self.phase == 4:
            self.last_a = 1

    def _value(self) -> int:
        a, delta = self.a, self.agg_delta
        if self.phase in (0, 1):
            return _mirror(a, self.last_a, True) * delta + self.as_
        if self.phase == 2:
            return (2 * _mirror(a, self.last_a, True) + 1) * self.scale * delta + 1
        return (2 * _mirror(a, self.last_a, True) + 1) * self.scale * delta

    def op(self) -> tuple[tuple[int, int] | None, bool]:
        """Run one getNextOp: return the (dimension, offset) sent or None, and whether done."""
        send = None
        n, phase = self.nranks, self.phase
        if self.a < self.last_a and phase in (0, 1, 2, 3):
            s = self._value()
            if phase == 0:
                send = (0, s) if s < n else None
            else:
                # Phases 1-3 receive on the lowest bit of s and forward what is left; phase 2
                # is phase 1 with the receive on dimension 0. A value past the last rank has
                # nothing to receive, yet still sends the rank's own share onwards.
                rest = s - (1 << _first_bit(s, self.nr_pow2))
                if rest and rest < n:
                    send = (_first_bit(rest, self.nr_pow2), rest)
        self.a += 1
        done = False
        self.advanced = self.a >= self.last_a and self.a >= self.parallel_factor
        if self.advanced:
            p = self.phase
            if p == 1:
                self.as_ -= 1
            if p == 3:
                self.scale *= 2
            if p == 0:
                self.phase = (2 if self.agg_factor > 1 else 4) if self.as_ == 1 else 1
            elif p == 1:
                self.phase = 0 if self.as_ % 2 == 1 else 1
            elif p == 2:
                self.phase = 3
            elif p == 3:
                self.phase = 2 if self.scale < self.agg_factor else 4
            else:
                self.phase = 5
            done = p == 4
            if not done:
                self._reset_a()
        return send, done


@lru_cache(maxsize=64)
def pat_steps(collective: str, ranks: int) -> tuple[Step, ...]:
    """Return the aggregated steps that send anything, in order, for `collective` on `ranks`."""
    if ranks < 2:
        return ()
    algo = _AllGather(ranks) if collective == "allgather" else _ReduceScatter(ranks)
    groups: list[list[tuple[int, int]]] = [[]]
    done = False
    while not done:
        send, done = algo.op()
        if send is not None:
            groups[-1].append(send)
        if algo.advanced:
            groups.append([])
    return tuple(tuple(group) for group in _posted(groups) if group)


def _posted(groups: list[list[tuple[int, int]]]) -> list[list[tuple[int, int]]]:
    """Keep each (dimension, offset) only in the last group that writes it.

    Reduce-scatter's phases 3 and 2 add into the same send slot (phase 3 never posts, the
    phase 2 after it does: postSend), so a block's partial sum leaves a rank once, when the
    last of its inputs has arrived. Allgather never writes a slot twice.
    """
    last = {send: g for g, group in enumerate(groups) for send in group}
    return [[send for send in group if last[send] == g] for g, group in enumerate(groups)]
