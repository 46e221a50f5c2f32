"""The narration's Chinese: the same keys as en.py, as a Chinese technical author would say it.

Terms follow docs/zh-terms.md (rank stays rank; 数据块 for chunk, 规约散射, 全收集, 流水线…).
Chinese has no plural, so each (one, many) pair of en.py is kept as a pair of equal texts where
the words do not change. Numbers are digits filled in by the code, exactly as in English: the
tests compare every sentence's numbers with its English twin's. Templates leave out the spaces
between Chinese and Latin letters or digits; `tidy` puts them in (docs/zh-terms.md: 第 3 步,
8 个 GPU), whatever a placeholder turns out to hold.
"""

from __future__ import annotations

import re

CAPITALIZE = False  # Chinese sentences have no capital letter to start with

SENTENCES: dict[str, str | tuple[str, str]] = {
    # -- the frame --------------------------------------------------------------------------
    "header": "第{k}步（共{total}步），{phase}：",
    "sentence": "{text}。",
    "space": "",
    "because": "{what}{why}",
    "join": "{a}；{b}",
    "after": "到第{end}步结束时，{goal}",
    "now": "现在{goal}",
    # -- lists, amounts, sizes --------------------------------------------------------------
    "and": "{a}和{b}",
    "comma": "{a}、{b}",
    "every rank": "每个 rank",
    "every rank but": "除 rank {r} 以外的每个 rank",
    "rank": "rank {r}",
    "ranks": "rank {list}",
    "n ranks": "{n}个 rank",
    "range": "{a}–{b}",
    "pair": "{a}↔{b}",
    "n pairs": "{n}对",
    "bytes": ("{n}字节", "{n}字节"),
    "kB": "{x} kB",
    "MB": "{x} MB",
    "GB": "{x} GB",
    "from to": "{a}到{b}",
    "amount": "{count}（{size}）",
    "message": ("{n}条消息", "{n}条消息"),
    "whole vector": ("自己的整个向量", "各自的整个向量"),
    "chunk": ("{n}个数据块", "{n}个数据块"),
    "block": ("{n}个块", "{n}个块"),
    "segment": ("{n}个分段", "{n}个分段"),
    "micro-batch": ("{n}个微批次", "{n}个微批次"),
    "noun chunk": "数据块",
    "noun block": "块",
    "noun segment": "分段",
    "noun micro-batch": "微批次",
    "switch SHARP switch": "SHARP 交换机",
    # -- operators --------------------------------------------------------------------------
    "op sum": "总和",
    "op avg": "平均值",
    "op prod": "乘积",
    "op max": "最大值",
    "op min": "最小值",
    "combine sum": ("接收方把收到的数据加到自己的副本上", "接收方把收到的数据加到各自的副本上"),
    "combine avg": ("接收方把收到的数据加到自己的副本上", "接收方把收到的数据加到各自的副本上"),
    "combine prod": ("接收方把收到的数据乘到自己的副本上", "接收方把收到的数据乘到各自的副本上"),
    "combine max": ("接收方逐元素保留较大的值", "接收方逐元素保留较大的值"),
    "combine min": ("接收方逐元素保留较小的值", "接收方逐元素保留较小的值"),
    "store": ("接收方保存一份副本", "接收方各自保存一份副本"),
    # -- start and end ----------------------------------------------------------------------
    "start every": "开始时，{p}个 rank 各有自己的{elements}个值（{size}）",
    "start blocks": "开始时，{p}个 rank 各有自己的一块数据，含{elements}个值（{size}）",
    "start root": "开始时，根 rank {root} 有{elements}个值（{size}），其他 rank 什么也没有",
    "start scatter": "开始时，根 rank {root} 有{p}个块，每块{block}个值，每个 rank 一块",
    "start all_to_all": "开始时，{p}个 rank 各有{p}个块，每块{block}个值，每个 rank 一块",
    "start sendrecv": "开始时，流水线的第一级 rank 0 有{elements}个值（{size}），切成{count}",
    "end allreduce": "现在每个 rank 都持有全部{p}个输入的{op}",
    "end reduce": "现在根 rank {root} 持有全部{p}个输入的{op}",
    "end broadcast": "现在每个 rank 都持有根的{elements}个值",
    "end allgather": "现在每个 rank 都按 rank 顺序持有全部{p}个块",
    "end gather": "现在根 rank {root} 按 rank 顺序持有全部{p}个块",
    "end reduce_scatter": "现在每个 rank i 持有全部{p}个输入的{op}的第 i 块",
    "end scatter": "现在每个 rank i 持有根的输入的第 i 块",
    "end all_to_all": "现在每个 rank 都按来源顺序持有发给它的块",
    "end sendrecv": "现在最后一级 rank {last} 持有全部{count}",
    # -- progress ---------------------------------------------------------------------------
    "contributions": "rank {r} 的{noun} {c} 现在含有{p}份贡献中的{k}份",
    "complete": "rank {r} 的{noun} {c} 现在含有全部{p}份贡献",
    "has final": "rank {r} 现在已得到结果的{total}中的{k}个",
    "has all": "rank {r} 现在已得到结果的全部{total}",
    "ranks final": "{t}个 rank 中已有{k}个得到最终结果",
    "root has": "根 rank {r} 现在已有{total}中的{k}个",
    # -- what moves -------------------------------------------------------------------------
    "sends to": ("{who}把{amount}发给{whom}，{verb}", "{who}把{amount}发给{whom}，{verb}"),
    "ring": "{who}把{amount}发给右邻居，{verb}",
    "into switch reduce nodes": (
        "{who}把{amount}送入{switch}，{switch}把{noun} {c} 的{sums}相加",
        "{who}把{amount}送入{switch}，{switch}把{noun} {c} 的{sums}相加",
    ),
    "into switch reduce one": (
        "{who}把{amount}送入{switch}，{switch}把{sums}累加到{noun} {c} 上",
        "{who}把{amount}送入{switch}，{switch}把{sums}累加到{noun} {c} 上",
    ),
    "into switch reduce": (
        "{who}把{amount}送入{switch}，{switch}对每一块累加{sums}",
        "{who}把{amount}送入{switch}，{switch}对每一块累加{sums}",
    ),
    "contribution": ("{n}份贡献", "{n}份贡献"),
    "node sum": ("{n}个节点的部分和", "{n}个节点的部分和"),
    "into switch copy": ("{who}把{amount}存入{switch}", "{who}把{amount}存入{switch}"),
    "switch multicasts one": "{switch}把{noun} {c} 的结果（{size}）组播给{whom}",
    "switch multicasts": "{switch}把{amount}组播给{whom}",
    "switch hands": "{switch}把每个 rank 自己的{noun}交给它，各{amount}：{noun} i 给 rank i",
    "chain up": (
        "在每个节点内，{k}个 rank 把一份部分和（{size}）沿链传给更靠近链头的邻居，邻居把它"
        "加到自己的数据上",
        "在各节点内，{k}个 rank 把一份部分和（{size}）沿链传给更靠近链头的邻居，邻居把它加到"
        "自己的数据上",
    ),
    "chain down": (
        "{k}个 rank 把一个已完成的{noun}（{size}）沿所在节点的链向下传",
        "{k}个 rank 把一个已完成的{noun}（{size}）沿所在节点的链向下传",
    ),
    "and while": "{a}，同时{b}",
    "switch holds sums": "{switch}现在持有全部{p}个 rank 上{count}的总和",
    "switch holds blocks": "{switch}现在持有{count}，每个 rank 一个",
    "both ways": "每个 rank 把{amount}发给右邻居，再把另一份发给左邻居，数据一半顺时针、一半逆时针"
    "绕环，{verb}",
    "fold_in": (
        "{p}不是二的幂，所以{who}把{amount}交给{whom}，{verb}，发送方随后退出",
        "{p}不是二的幂，所以{who}把{amount}交给{whom}，{verb}，发送方随后退出",
    ),
    "fold_out": (
        "{who}把{amount}发回给{whom}，后者没有参与超立方体阶段",
        "{who}把{amount}发回给{whom}，后者没有参与超立方体阶段",
    ),
    "partner": "超立方体中的{pof2}个 rank 各把{amount}发给距离为{d}的伙伴（{pairs}），{verb}",
    "halve": "超立方体中的{pof2}个 rank 各把{amount}（自己所负责部分的一半）发给距离为{d}的伙伴"
    "（{pairs}），{verb}，并保留另一半",
    "intra": (
        "在唯一的节点内，每个 rank 把一个分片，即{amount}，发给下一个 rank，{verb}",
        "在{nodes}个节点的每一个内部，每个 rank 把一个分片，即{amount}，发给本节点的下一个 rank，"
        "{verb}",
    ),
    "inter": (
        "一个环横跨{nodes}个节点：每个 rank 把{amount}发给下一个节点上的 rank，{verb}",
        "{g}个环同时横跨{nodes}个节点，每个本地编号一个：每个 rank 把{amount}发给下一个节点上"
        "本地编号相同的 rank，{verb}",
    ),
    "pass one": "rank {src} 把{noun} {label}（{size}）传给 rank {dst}，{verb}",
    "pass many": "{hops}条链路中有{k}条同时在传，每条把一个{noun}（{size}）传给下一个 rank，{verb}",
    "pass all": "全部{hops}条链路同时在传，每条把一个{noun}（{size}）传给下一个 rank，{verb}",
    "bruck allgather": "每个 rank r 把{amount}发给 rank r−{d}，即它持有而 rank r−{d} 仍缺少的块",
    "bruck all_to_all": "每个 rank r 用一条消息把{amount}发给 rank r+{d}，即回家路上仍要走一段距离"
    "{d}的那些块",
    "pat allgather": "每个 rank r 把{amount}发给 rank r−{d}，都是它持有的块，各自沿自己的树继续"
    "向下",
    "pat reduce_scatter": "每个 rank r 把{amount}发给 rank r+{d}，即它已加上自己输入的部分和，各自"
    "正发往拥有该块的 rank",
    "shift": "每个 rank r 把为 rank (r+{d}) mod {p} 准备的块直接发过去，共{amount}",
    "direct from root": "根 rank {root} 同时向其他每个 rank 发送{amount}",
    "direct to root": "除根以外的每个 rank 同时把{amount}发给根 rank {root}，{verb}",
    "direct all": "每个 rank 同时向其他每个 rank 发送{amount}，{verb}",
    "up": (
        "{who}把{amount}沿树向上发给{whom}，{verb}",
        "{who}把{amount}沿树向上发给{whom}，{verb}",
    ),
    "down": ("{who}把{amount}向下发给{whom}", "{who}把{amount}向下发给{whom}"),
    "to root": "{who}把{amount}发给根 rank {root}，{verb}",
    "from root": "根 rank {root} 把{amount}发给{whom}",
    "half up": "半份数据 {label} 沿所在的树从{who}向上传给{whom}",
    "half down": "半份数据 {label} 沿所在的树从{who}向下传给{whom}",
    "halves": "{parts}，每条消息{size}",
    "stream up": (
        "数据块 {labels} 沿{tree}从{who}向上传给{whom}",
        "数据块 {labels} 沿{tree}从{who}向上传给{whom}",
    ),
    "stream down": (
        "数据块 {labels} 沿{tree}从{who}向下传给{whom}",
        "数据块 {labels} 沿{tree}从{who}向下传给{whom}",
    ),
    "tree 0": "第一棵树",
    "tree 1": "第二棵树",
    "torus row": "沿网格的每一行，每个 rank 把一个分片，即{amount}，发给本行的下一个 rank，{verb}",
    "torus column": "网格的每一列同时向下传：每个 rank 把{amount}发给它下面的 rank，最后一行发给"
    "第一行，{verb}",
    "while": "，同时",
}

WHY = {
    # Each starts with the punctuation that joins it to what moved.
    "why ring reduce_scatter": "，这样每个部分和每走一跳就多一份贡献",
    "why ring allgather": "，这样已完成的各块沿环走一圈",
    "why allgather ring allgather": "，这样每个块每步走一跳，绕环传遍",
    "why hypercube fold_in": "，使其余{pof2}个 rank 组成超立方体",
    "why allreduce exchange": "：两个伙伴现在持有相同的部分结果，覆盖的输入是之前的两倍",
    "why allgather exchange": "：两个伙伴现在持有相同的块，数量是之前的两倍",
    "why halving": "：每个 rank 负责的部分减半，而其中的贡献翻倍",
    "why doubling": "，把减半的过程倒过来：每个 rank 持有的已完成数据块翻倍",
    "why intra_rs": "，因为节点内的链路很快：每个节点先在内部规约，这样每个 rank 只有一个分片需要"
    "经过网络",
    "why inter_rs": "，这样一个节点的每条网络链路同时都在使用",
    "why inter_ag": "，这样一个节点的每条网络链路同时都在使用",
    "why intra_ag": "：已完成的分片经节点内的高速链路传回",
    "why fill": "，每一步都有一个新的{noun}从 rank {head} 进入链",
    "why full": "：流水线已满，这正是把数据切成{count}的原因",
    "why drain": "：不再有新的{noun}进入，最后几个继续向 rank {tail} 移动",
    "why allgather bruck distance": "：距离每步翻倍，每个 rank 持有的数据也翻倍，rank 数取任意值都"
    "成立",
    "why all_to_all bruck distance": "，这样各块以二的幂为步长跳回目标，用多传的字节换更少的步数",
    "why allgather pat distance": "：最长的一跳最先走，携带的块最少，之后途中的块每步翻倍",
    "why reduce_scatter pat distance": "：最短的一跳最先走，携带的块最多，部分和在传输途中合并",
    "why shift": "：每一步让每个 rank 和一个不同的对端配对，这样每一对恰好相遇一次",
    "why direct_all": "。这里有意采用全端口模型：每个 rank 在这一步里发送{out}（{out_size}）、接收"
    "{inn}（{in_size}），而一条真实链路只能一个接一个地传送它们",
    "why direct_to_root": "。这里有意采用全端口模型：根在这一步里接收{inn}（{in_size}），而它唯一的"
    "真实链路只能一个接一个地传送它们",
    "why direct_from_root": "。这里有意采用全端口模型：根在这一步里发送{out}（{out_size}），而它"
    "唯一的真实链路只能一个接一个地传送它们",
    "why binary_tree up": "，因为父节点要等子节点都报告之后才把自己的和往上传",
    "why binary_tree down": "：结果每步向下流回一层",
    "why binomial_tree up": "，持有部分结果的 rank 数减半",
    "why binomial_tree down": "：每个已有数据的 rank 都继续往下传，所以持有数据的 rank 数每步翻倍",
    "why gather_up": "：每个 rank 一次转发它整棵子树的块",
    "why scatter_down": "：每个父节点把子节点整棵子树的块交给该子节点",
    "why to_root": "：根每步只能接收一条消息，所以逐个接收各 rank 的数据",
    "why from_root": "：根每步只能发送一条消息，所以逐个发给各 rank",
    "why scatter_allgather ring": "，这样每一块都绕环传一圈",
    "why double_tree up": "：每棵树承载一半数据，在一棵树中处于内部的 rank 在另一棵树中是叶子",
    "why double_tree down": "：每棵树承载一半数据，在一棵树中处于内部的 rank 在另一棵树中是叶子",
    "why double_tree mixed": "：每棵树承载一半数据",
    "why pipelined_trees up": "：流水线正在填充，每步每棵树多一层开始工作",
    "why pipelined_trees mixed": "：较晚的数据块仍在规约，较早的已经往下传回，所以树的链路两个方向"
    "都在忙",
    "why pipelined_trees down": "：流水线正在排空，每个数据块都已规约完毕",
    "why row_rs": "，这样每一行先把本行各 rank 的数据求和，每个 rank 一个分片",
    "why col_rs": "：每一列上的环把各行持有的分片求和，只处理一小部分数据",
    "why col_ag": "，这样一列中的每个 rank 都得到在整个网格上求和后的分片",
    "why row_ag": "：已完成的分片沿各行传回",
}

GOALS = {
    "goal allreduce switch": "每个 rank 都拥有全部{chunks}个完全规约的数据块",
    "goal reduce_scatter switch": "每个 rank i 拥有完全规约的第 i 块",
    "goal allgather switch": "每个 rank 都拥有全部{p}个块",
    "goal allreduce ring reduce_scatter": "每个 rank 拥有一个完全规约的数据块",
    "goal allreduce ring allgather": "每个 rank 都拥有全部{chunks}个完全规约的数据块",
    "goal allreduce ring_bidirectional reduce_scatter": "每个 rank 拥有两个完全规约的数据块，每个"
    "方向一个",
    "goal allreduce ring_bidirectional allgather": "每个 rank 都拥有全部{chunks}个完全规约的数据块",
    "goal allgather allgather": "每个 rank 都拥有全部{p}个块",
    "goal reduce_scatter reduce_scatter": "每个 rank i 拥有完全规约的第 i 块",
    "goal fold_in": "超立方体的{pof2}个 rank 承载了每个 rank 的数据",
    "goal allreduce exchange": "超立方体中的每个 rank 都持有完整的{op}",
    "goal allgather exchange": "超立方体中的每个 rank 都拥有全部{p}个块",
    "goal halving": "超立方体中的每个 rank 都拥有自己那部分的完全规约结果",
    "goal doubling": "超立方体中的每个 rank 都拥有全部{chunks}个完全规约的数据块",
    "goal intra_rs": "每个 rank 持有一个在本节点内规约过的分片",
    "goal inter_rs": "每个 rank 拥有自己分片中的一个数据块，已在所有节点上规约",
    "goal inter_ag": "每个 rank 持有在所有节点上规约过的完整分片",
    "goal reduce chain": "根 rank {root} 持有每个完全规约的分段",
    "goal broadcast chain": "每个 rank 都拥有全部{count}",
    "goal sendrecv chain": "最后一级拥有全部{count}",
    "goal allgather bruck": "每个 rank 都拥有全部{p}个块",
    "goal all_to_all bruck": "每个块都已到达它的 rank",
    "goal allgather pat": "每个 rank 都拥有全部{p}个块",
    "goal reduce_scatter pat": "每个 rank i 拥有完全规约的第 i 块",
    "goal all_to_all complete": "每个 rank 都拥有发给它的块",
    "goal up": "根 rank {root} 持有完整的{op}",
    "goal down": "每个 rank 都拥有结果",
    "goal broadcast down": "每个 rank 都拥有根的数据",
    "goal gather_up": "根拥有全部{p}个块",
    "goal scatter scatter_down": "每个 rank 持有自己的块",
    "goal broadcast scatter_down": "每个 rank 持有根数据中的一块",
    "goal ring": "每个 rank 都拥有全部{chunks}块",
    "goal to_root": "根 rank {root} 持有完整的{op}",
    "goal from_root": "每个 rank 都拥有结果",
    "goal double_tree up": "每棵树的根持有完全规约的那一半",
    "goal double_tree down": "每个 rank 都拥有两半数据",
    "goal pipelined_trees up": "有一个根持有自己第一个完全规约的数据块，广播开始",
    "goal pipelined_trees mixed": "每个数据块都已在所在树的根上完全规约",
    "goal pipelined_trees down": "每个 rank 都拥有全部{chunks}个数据块",
    "goal row_rs": "每个 rank 持有一个在本行上求和的分片",
    "goal col_rs": "每个 rank 拥有自己分片中的一个数据块，已在整个网格上求和",
    "goal col_ag": "每个 rank 持有在整个网格上求和后的完整分片",
}

PHASES = {
    "switch_in": "送入交换机",
    "switch_out": "从交换机发出",
    "switch_both": "进出交换机",
    "chain_up": "链式规约",
    "chain_down": "链式广播",
    "reduce_scatter": "规约散射",
    "allgather": "全收集",
    "fold_in": "折入",
    "fold_out": "折出",
    "exchange": "交换",
    "halving": "递归减半",
    "doubling": "递归倍增",
    "up": "沿树向上规约",
    "double_tree up": "沿两棵树向上规约",
    "double_tree down": "沿两棵树向下广播",
    "down": "沿树向下广播",
    "mixed": "一棵树向上，另一棵向下",
    "pipelined_trees up": "流水线填充，向上规约",
    "pipelined_trees mixed": "流水线化的向上规约与向下广播",
    "pipelined_trees down": "流水线排空，向下广播",
    "row_rs": "行内规约散射",
    "col_rs": "列内规约散射",
    "col_ag": "列内全收集",
    "row_ag": "行内全收集",
    "gather_up": "沿树向上收集",
    "scatter_down": "沿树向下散发",
    "to_root": "汇聚到根",
    "from_root": "从根发出",
    "ring": "沿环全收集",
    "fill": "流水线填充",
    "full": "流水线满载",
    "drain": "流水线排空",
    "intra_rs": "节点内规约散射",
    "inter_rs": "节点间规约散射",
    "inter_ag": "节点间全收集",
    "intra_ag": "节点内全收集",
    "direct_all": "一步全部发出",
    "direct_to_root": "一步全部发出",
    "direct_from_root": "一步全部发出",
    "shift": "移位{d}",
    "distance": "距离{d}",
}

TABLE = {**SENTENCES, **WHY, **GOALS}

_HAN = "\u3400-\u4dbf\u4e00-\u9fff"
_LATIN = "A-Za-z0-9"
_GAPS = (
    (re.compile(rf"([{_HAN}])([{_LATIN}])"), r"\1 \2"),
    (re.compile(rf"([{_LATIN}])([{_HAN}])"), r"\1 \2"),
)


def tidy(text: str) -> str:
    """Put a space between Chinese and Latin letters or digits (第 3 步, rank 1 的数据块 A)."""
    for pattern, spaced in _GAPS:
        text = pattern.sub(spaced, text)
    return text
