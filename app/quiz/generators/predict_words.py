"""How a predict question names its algorithm and collective, in each language.

The English names are how the lessons write them ("recursive-doubling", "AllGather"); the
Chinese ones follow docs/zh-terms.md, with the English in parentheses where the terms table
says so. The names are a table, not catalog messages: short words such as "ring" mean other
things elsewhere in the UI (a topology), and a title is built from them. The sentences around
them (option labels, the feedback's steps) are catalog messages (`predict_answers`).
"""

from __future__ import annotations

from app.collectives import COLLECTIVES

ALGORITHM_NAMES = {
    "bruck": "Bruck",
    "rabenseifner": "Rabenseifner",
    "recursive_doubling": "recursive-doubling",
    "recursive_halving": "recursive-halving",
    "binomial_tree": "binomial-tree",
    "binary_tree": "binary-tree",
    "double_binary_tree": "double-binary-tree",
    "scatter_allgather": "scatter + allgather",
    "reduce_broadcast": "reduce + broadcast",
    "ring_bidirectional": "bidirectional-ring",
    "2d_torus": "2D-torus",
    "tree_pipelined": "pipelined double-binary-tree",
    "pat": "PAT",
}
ALGORITHM_NAMES_ZH = {
    "ring": "环形算法",
    "bruck": "Bruck 算法",
    "rabenseifner": "Rabenseifner 算法",
    "recursive_doubling": "递归倍增算法",
    "recursive_halving": "递归减半算法",
    "binomial_tree": "二项树算法",
    "binary_tree": "二叉树算法",
    "double_binary_tree": "双二叉树算法",
    "scatter_allgather": "散发 + 全收集算法",
    "reduce_broadcast": "规约 + 广播算法",
    "ring_bidirectional": "双向环形算法",
    "2d_torus": "二维环面（torus）算法",
    "tree_pipelined": "流水线双二叉树算法",
    "pat": "PAT 算法",
    "pairwise": "成对交换算法",
    "hierarchical": "分层算法",
    "pipeline": "流水线算法",
    "pipelined_ring": "流水线环形算法",
}
COLLECTIVE_NAMES_ZH = {
    "allreduce": "全规约（AllReduce）",
    "reduce": "规约（Reduce）",
    "broadcast": "广播（Broadcast）",
    "allgather": "全收集（AllGather）",
    "reduce_scatter": "规约散射（ReduceScatter）",
    "all_to_all": "全交换（All-to-All）",
    "gather": "收集（Gather）",
    "scatter": "散发（Scatter）",
    "sendrecv": "点对点收发（Send/Recv）",
}


def algorithm_name(algorithm: str, lang: str = "en") -> str:
    """The algorithm as a prompt names it: "recursive-doubling", "递归倍增算法"."""
    if lang == "zh" and algorithm in ALGORITHM_NAMES_ZH:
        return ALGORITHM_NAMES_ZH[algorithm]
    return ALGORITHM_NAMES.get(algorithm, algorithm.replace("_", " "))


def collective_name(collective: str, lang: str = "en") -> str:
    """The collective as a prompt names it: "AllReduce", "全规约（AllReduce）"."""
    if lang == "zh" and collective in COLLECTIVE_NAMES_ZH:
        return COLLECTIVE_NAMES_ZH[collective]
    return COLLECTIVES[collective].title


def title(collective: str, algorithm: str, lang: str = "en") -> str:
    """The case's title, a prompt's {title}: "Ring AllReduce", "环形算法的全规约（AllReduce）"."""
    if lang == "zh":
        return f"{algorithm_name(algorithm, lang)}的{collective_name(collective, lang)}"
    text = f"{algorithm_name(algorithm)} {collective_name(collective)}"
    return text[0].upper() + text[1:]
