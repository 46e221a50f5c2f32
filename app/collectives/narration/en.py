"""The narration's English: every word it says, as `str.format` templates keyed by name.

A pair (one, many) agrees with a count. Numbers are always filled in as digits by the code.
`why …` and `goal …` templates are looked up most specific first: collective + algorithm +
kind, algorithm + kind, collective + kind, collective + shape, shape + kind, kind (compose.py).
A language is a table with the same keys (issue 20: Chinese).
"""

from __future__ import annotations

CAPITALIZE = True  # each sentence after the first part starts with a capital

SENTENCES: dict[str, str | tuple[str, str]] = {
    # -- the frame --------------------------------------------------------------------------
    "header": "Step {k} of {total}, {phase}:",
    "sentence": "{text}.",
    "space": " ",
    "because": "{what}{why}",
    "join": "{a}; {b}",
    "after": "after step {end}, {goal}",
    "now": "now {goal}",
    # -- lists, amounts, sizes --------------------------------------------------------------
    "and": "{a} and {b}",
    "comma": "{a}, {b}",
    "every rank": "every rank",
    "every rank but": "every rank but rank {r}",
    "rank": "rank {r}",
    "ranks": "ranks {list}",
    "n ranks": "{n} ranks",
    "range": "{a}–{b}",
    "pair": "{a}↔{b}",
    "n pairs": "{n} pairs",
    "bytes": ("{n} byte", "{n} bytes"),
    "kB": "{x} kB",
    "MB": "{x} MB",
    "GB": "{x} GB",
    "from to": "{a} to {b}",
    "amount": "{count} ({size})",
    "message": ("{n} message", "{n} messages"),
    "whole vector": ("its whole vector", "their whole vectors"),
    "chunk": ("{n} chunk", "{n} chunks"),
    "block": ("{n} block", "{n} blocks"),
    "segment": ("{n} segment", "{n} segments"),
    "micro-batch": ("{n} micro-batch", "{n} micro-batches"),
    "noun chunk": "chunk",
    "noun block": "block",
    "noun segment": "segment",
    "noun micro-batch": "micro-batch",
    "switch SHARP switch": "SHARP switch",  # the engine's name of a switch, said in words
    # -- operators --------------------------------------------------------------------------
    "op sum": "sum",
    "op avg": "average",
    "op prod": "product",
    "op max": "maximum",
    "op min": "minimum",
    "combine sum": (
        "which adds what arrives to its own copy",
        "which add what arrives to their own copies",
    ),
    "combine avg": (
        "which adds what arrives to its own copy",
        "which add what arrives to their own copies",
    ),
    "combine prod": (
        "which multiplies what arrives into its own copy",
        "which multiply what arrives into their own copies",
    ),
    "combine max": ("which keeps the larger values", "which keep the larger values"),
    "combine min": ("which keeps the smaller values", "which keep the smaller values"),
    "store": ("which keeps a copy", "which keep a copy"),
    # -- start and end ----------------------------------------------------------------------
    "start every": "each of the {p} ranks starts with its own {elements} values ({size})",
    "start blocks": "each of the {p} ranks starts with its own block of {elements} values ({size})",
    "start root": "the root, rank {root}, starts with {elements} values ({size}), the other "
    "ranks with nothing",
    "start scatter": "the root, rank {root}, starts with {p} blocks of {block} values, one for "
    "each rank",
    "start all_to_all": "each of the {p} ranks starts with {p} blocks of {block} values, one "
    "for each rank",
    "start sendrecv": "rank 0, the first stage, starts with {elements} values ({size}) cut into "
    "{count}",
    "end allreduce": "now every rank holds the {op} of all {p} inputs",
    "end reduce": "now the root, rank {root}, holds the {op} of all {p} inputs",
    "end broadcast": "now every rank holds the root's {elements} values",
    "end allgather": "now every rank holds all {p} blocks, in rank order",
    "end gather": "now the root, rank {root}, holds all {p} blocks, in rank order",
    "end reduce_scatter": "now each rank i holds block i of the {op} of all {p} inputs",
    "end scatter": "now each rank i holds block i of the root's input",
    "end all_to_all": "now every rank holds the blocks meant for it, in source order",
    "end sendrecv": "now the last stage, rank {last}, holds all {count}",
    # -- progress ---------------------------------------------------------------------------
    "contributions": "rank {r}'s {noun} {c} now holds {k} of {p} contributions",
    "complete": "rank {r}'s {noun} {c} now holds all {p} contributions",
    "has final": "rank {r} now has {k} of {total} of its result",
    "has all": "rank {r} now has all {total} of its result",
    "ranks final": "{k} of {t} ranks now have their final result",
    "root has": "the root, rank {r}, now has {k} of {total}",
    # -- what moves -------------------------------------------------------------------------
    "sends to": ("{who} sends {amount} to {whom}, {verb}", "{who} send {amount} to {whom}, {verb}"),
    "ring": "{who} sends {amount} to its right neighbour, {verb}",
    "into switch reduce nodes": (
        "{who} sends {amount} into the {switch}, which adds the {sums} of {noun} {c}",
        "{who} send {amount} into the {switch}, which adds the {sums} of {noun} {c}",
    ),
    "into switch reduce one": (
        "{who} sends {amount} into the {switch}, which adds the {sums} to {noun} {c}",
        "{who} send {amount} into the {switch}, which adds the {sums} to {noun} {c}",
    ),
    "into switch reduce": (
        "{who} sends {amount} into the {switch}, which adds the {sums} to each",
        "{who} send {amount} into the {switch}, which adds the {sums} to each",
    ),
    "contribution": ("{n} contribution", "{n} contributions"),
    "node sum": ("{n} node's partial sum", "{n} nodes' partial sums"),
    "into switch copy": (
        "{who} stores {amount} into the {switch}",
        "{who} store {amount} into the {switch}",
    ),
    "switch multicasts one": "the {switch} multicasts the result of {noun} {c} ({size}) to {whom}",
    "switch multicasts": "the {switch} multicasts {amount} to {whom}",
    "switch hands": "the {switch} hands each rank its own {noun} ({amount}): {noun} i to rank i",
    "chain up": (
        "inside each node {k} rank passes a partial sum ({size}) up the chain to the neighbour "
        "nearer the head, which adds it to its own",
        "inside the nodes {k} ranks pass a partial sum ({size}) up the chain to the neighbour "
        "nearer the head, which adds it to its own",
    ),
    "chain down": (
        "{k} rank passes a finished {noun} ({size}) down its node's chain",
        "{k} ranks pass a finished {noun} ({size}) down their nodes' chains",
    ),
    "and while": "{a}, while {b}",
    "switch holds sums": "the {switch} now holds the sum of {count} over all {p} ranks",
    "switch holds blocks": "the {switch} now holds {count}, one from each rank",
    "both ways": "every rank sends {amount} to its right neighbour and another to its left, "
    "half the data going each way round, {verb}",
    "fold_in": (
        "{p} is not a power of two, so {who} hands {amount} to {whom}, {verb}, and sits out",
        "{p} is not a power of two, so {who} hand {amount} to {whom}, {verb}, and sit out",
    ),
    "fold_out": (
        "{who} sends {amount} back to {whom}, which sat out the hypercube",
        "{who} send {amount} back to {whom}, which sat out the hypercube",
    ),
    "partner": "each of the {pof2} ranks in the hypercube sends {amount} to its partner at "
    "distance {d} ({pairs}), {verb}",
    "halve": "each of the {pof2} ranks in the hypercube sends {amount}, half of what it is "
    "responsible for, to its partner at distance {d} ({pairs}), {verb}, and keeps the other "
    "half",
    "intra": (
        "inside the one node, every rank sends a shard, {amount}, to the next rank, {verb}",
        "inside each of the {nodes} nodes, every rank sends a shard, {amount}, to the next "
        "rank of its node, {verb}",
    ),
    "inter": (
        "one ring runs across the {nodes} nodes: every rank sends {amount} to the rank on the "
        "next node, {verb}",
        "{g} rings run across the {nodes} nodes at once, one per local rank: every rank "
        "sends {amount} to the rank with its local number on the next node, {verb}",
    ),
    "pass one": "rank {src} passes {noun} {label} ({size}) to rank {dst}, {verb}",
    "pass many": "{k} of the {hops} links are busy at once, each carrying one {noun} ({size}) "
    "to the next rank, {verb}",
    "pass all": "all {hops} links are busy at once, each carrying one {noun} ({size}) to the next "
    "rank, {verb}",
    "bruck allgather": "every rank r sends {amount} to rank r−{d}, the blocks it holds that rank "
    "r−{d} still lacks",
    "bruck all_to_all": "every rank r sends {amount} to rank r+{d} in one message, the blocks "
    "whose way home still includes a hop of {d}",
    "pat allgather": "every rank r sends {amount} to rank r−{d}, blocks it holds, each going "
    "on down its own tree",
    "pat reduce_scatter": "every rank r sends {amount} to rank r+{d}: partial sums it added its "
    "own input to, each on its way to the rank that owns the block",
    "shift": "every rank r sends the block it holds for rank (r+{d}) mod {p} straight there, "
    "{amount}",
    "direct from root": "the root, rank {root}, sends {amount} to every other rank at once",
    "direct to root": "every rank but the root sends {amount} to the root, rank {root}, at "
    "once, {verb}",
    "direct all": "every rank sends {amount} to every other rank at once, {verb}",
    "up": (
        "{who} sends {amount} up the tree to {whom}, {verb}",
        "{who} send {amount} up the tree to {whom}, {verb}",
    ),
    "down": ("{who} sends {amount} down to {whom}", "{who} send {amount} down to {whom}"),
    "to root": "{who} sends {amount} to the root, rank {root}, {verb}",
    "from root": "the root, rank {root}, sends {amount} to {whom}",
    "half up": "half {label} goes up its tree from {who} to {whom}",
    "half down": "half {label} goes down its tree from {who} to {whom}",
    "halves": "{parts}, {size} per message",
    "stream up": (
        "chunk {labels} goes up the {tree} from {who} to {whom}",
        "chunks {labels} go up the {tree} from {who} to {whom}",
    ),
    "stream down": (
        "chunk {labels} goes down the {tree} from {who} to {whom}",
        "chunks {labels} go down the {tree} from {who} to {whom}",
    ),
    "tree 0": "first tree",
    "tree 1": "second tree",
    "torus row": "along every row of the grid, each rank sends a shard, {amount}, to the next "
    "rank of its row, {verb}",
    "torus column": "down every column of the grid at once, each rank sends {amount} to the "
    "rank below it, the last row to the first, {verb}",
    "while": " while ",
}

WHY = {
    # Each starts with the punctuation that joins it to what moved.
    "why ring reduce_scatter": ", so each partial sum gains one contribution per hop",
    "why ring allgather": ", so the finished pieces travel once around the ring",
    "why allgather ring allgather": ", so every block travels around the ring, one hop per step",
    "why hypercube fold_in": ", so that the other {pof2} ranks form a hypercube",
    "why allreduce exchange": ": both partners now hold the same partial result, covering twice "
    "as many inputs",
    "why allgather exchange": ": both partners now hold the same blocks, twice as many as before",
    "why halving": ": the part each rank is responsible for halves while its contributions double",
    "why doubling": ", undoing the halving: the finished chunks each rank holds double",
    "why intra_rs": ", because links inside a node are fast: each node reduces first, so only a "
    "shard per rank crosses the network",
    "why inter_rs": ", so every network link of a node is in use at once",
    "why inter_ag": ", so every network link of a node is in use at once",
    "why intra_ag": ": the finished shards spread back over the fast links inside each node",
    "why fill": ", and a new {noun} enters the chain at rank {head} each step",
    "why full": ": the pipeline is full, the reason the data is cut into {count}",
    "why drain": ": no new {noun} enters, the last ones move on toward rank {tail}",
    "why allgather bruck distance": ": the distance doubles each step and so does what each rank "
    "holds, for any number of ranks",
    "why all_to_all bruck distance": ", so blocks hop home in powers of two, trading extra bytes "
    "for fewer steps",
    "why allgather pat distance": ": the longest hop goes first and carries the fewest blocks, "
    "and each step the blocks on the way double",
    "why reduce_scatter pat distance": ": the shortest hop goes first with the most blocks, and "
    "the partial sums merge as they travel",
    "why shift": ": each step pairs every rank with a different peer, so every pair meets once",
    "why direct_all": ". All-port on purpose: each rank sends {out} ({out_size}) and receives "
    "{inn} ({in_size}) in this one step, which one real link would carry one after another",
    "why direct_to_root": ". All-port on purpose: the root receives {inn} ({in_size}) in this "
    "one step, which its one real link would carry one after another",
    "why direct_from_root": ". All-port on purpose: the root sends {out} ({out_size}) in this "
    "one step, which its one real link would carry one after another",
    "why binary_tree up": ", because a parent passes its sum on only after its children have "
    "reported",
    "why binary_tree down": ": the result flows back down one level per step",
    "why binomial_tree up": ", halving the ranks that still hold partial results",
    "why binomial_tree down": ": every rank that has the data passes it on, so the number "
    "holding it doubles each step",
    "why gather_up": ": each rank forwards the blocks of its whole subtree at once",
    "why scatter_down": ": each parent hands a child the blocks of the child's whole subtree",
    "why to_root": ": the root can take only one message per step, so it hears the ranks one at "
    "a time",
    "why from_root": ": the root can send only one message per step, so it serves the ranks one "
    "at a time",
    "why scatter_allgather ring": ", so every piece travels around the ring",
    "why double_tree up": ": each tree carries half the data, and a rank inside one tree is a "
    "leaf in the other",
    "why double_tree down": ": each tree carries half the data, and a rank inside one tree is a "
    "leaf in the other",
    "why double_tree mixed": ": each tree carries half the data",
    "why pipelined_trees up": ": the pipeline fills, one more level of each tree busy every step",
    "why pipelined_trees mixed": ": later chunks are still being reduced while earlier ones come "
    "back down, so both directions of the trees' links are busy",
    "why pipelined_trees down": ": the pipeline drains, every chunk has been reduced",
    "why row_rs": ", so each row first sums its own ranks' data, one shard per rank",
    "why col_rs": ": a ring down each column sums the shards the rows hold, on a fraction of "
    "the data",
    "why col_ag": ", so every rank of a column has its shard summed over the whole grid",
    "why row_ag": ": the finished shards spread back along the rows",
}

GOALS = {
    "goal allreduce switch": "every rank has all {chunks} chunks fully reduced",
    "goal reduce_scatter switch": "each rank i owns block i fully reduced",
    "goal allgather switch": "every rank has all {p} blocks",
    "goal allreduce ring reduce_scatter": "each rank owns one fully reduced chunk",
    "goal allreduce ring allgather": "every rank has all {chunks} chunks fully reduced",
    "goal allreduce ring_bidirectional reduce_scatter": "each rank owns two fully reduced "
    "chunks, one from each direction",
    "goal allreduce ring_bidirectional allgather": "every rank has all {chunks} chunks fully "
    "reduced",
    "goal allgather allgather": "every rank has all {p} blocks",
    "goal reduce_scatter reduce_scatter": "each rank i owns block i fully reduced",
    "goal fold_in": "the {pof2} ranks of the hypercube carry every rank's data",
    "goal allreduce exchange": "every rank of the hypercube holds the full {op}",
    "goal allgather exchange": "every rank of the hypercube has all {p} blocks",
    "goal halving": "each rank of the hypercube owns its part fully reduced",
    "goal doubling": "every rank of the hypercube has all {chunks} chunks fully reduced",
    "goal intra_rs": "each rank holds one shard reduced over its node",
    "goal inter_rs": "each rank owns one chunk of its shard reduced over all nodes",
    "goal inter_ag": "each rank holds its whole shard reduced over all nodes",
    "goal reduce chain": "the root, rank {root}, holds every segment fully reduced",
    "goal broadcast chain": "every rank has all {count}",
    "goal sendrecv chain": "the last stage has all {count}",
    "goal allgather bruck": "every rank has all {p} blocks",
    "goal all_to_all bruck": "every block has reached its rank",
    "goal allgather pat": "every rank has all {p} blocks",
    "goal reduce_scatter pat": "each rank i owns block i fully reduced",
    "goal all_to_all complete": "every rank has the blocks meant for it",
    "goal up": "the root, rank {root}, holds the full {op}",
    "goal down": "every rank has the result",
    "goal broadcast down": "every rank has the root's data",
    "goal gather_up": "the root has all {p} blocks",
    "goal scatter scatter_down": "every rank holds its own block",
    "goal broadcast scatter_down": "every rank holds one piece of the root's data",
    "goal ring": "every rank has all {chunks} pieces",
    "goal to_root": "the root, rank {root}, holds the full {op}",
    "goal from_root": "every rank has the result",
    "goal double_tree up": "each tree's root holds its half fully reduced",
    "goal double_tree down": "every rank has both halves",
    "goal pipelined_trees up": "a root holds its first chunk fully reduced, and the broadcast "
    "begins",
    "goal pipelined_trees mixed": "every chunk has been fully reduced at its tree's root",
    "goal pipelined_trees down": "every rank has all {chunks} chunks",
    "goal row_rs": "each rank holds one shard summed over its row",
    "goal col_rs": "each rank owns one chunk of its shard summed over the whole grid",
    "goal col_ag": "each rank holds its whole shard summed over the whole grid",
}

PHASES = {
    "switch_in": "into the switch",
    "switch_out": "out of the switch",
    "switch_both": "into the switch and out of it",
    "chain_up": "chain reduce",
    "chain_down": "chain broadcast",
    "reduce_scatter": "reduce-scatter",
    "allgather": "allgather",
    "fold_in": "fold-in",
    "fold_out": "fold-out",
    "exchange": "exchange",
    "halving": "recursive halving",
    "doubling": "recursive doubling",
    "up": "reduce up the tree",
    "double_tree up": "reduce up both trees",
    "double_tree down": "broadcast down both trees",
    "down": "broadcast down the tree",
    "mixed": "one tree up, the other down",
    "pipelined_trees up": "pipeline filling, reduce up",
    "pipelined_trees mixed": "reduce up and broadcast down, pipelined",
    "pipelined_trees down": "pipeline draining, broadcast down",
    "row_rs": "row reduce-scatter",
    "col_rs": "column reduce-scatter",
    "col_ag": "column allgather",
    "row_ag": "row allgather",
    "gather_up": "gather up the tree",
    "scatter_down": "scatter down the tree",
    "to_root": "into the root",
    "from_root": "out from the root",
    "ring": "allgather around the ring",
    "fill": "pipeline filling",
    "full": "pipeline full",
    "drain": "pipeline draining",
    "intra_rs": "intra-node reduce-scatter",
    "inter_rs": "inter-node reduce-scatter",
    "inter_ag": "inter-node allgather",
    "intra_ag": "intra-node allgather",
    "direct_all": "all at once",
    "direct_to_root": "all at once",
    "direct_from_root": "all at once",
    "shift": "shift by {d}",
    "distance": "distance {d}",
}

TABLE = {**SENTENCES, **WHY, **GOALS}
